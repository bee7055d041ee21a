/**
 * Webhooks: the session partner's endpoints (the partner portal, simulated), with their subscriptions and state,
 * and the events the mock made, each with its payload and every delivery attempt; redeliver an event, re-enable an
 * endpoint, rotate its secret, add one.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../api.ts';
import { Json, Notice, Panel, StatusBadge, useOutcome, When, type CallResult } from '../ui.tsx';
import { partnerKey } from '../session.ts';

type Endpoint = AdminSchemas['WebhookEndpoint'];
type MockEvent = AdminSchemas['MockEvent'];

export function WebhooksView() {
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [events, setEvents] = useState<MockEvent[]>([]);
  const { setProblem, version, reload, settle, notices } = useOutcome();
  const key = partnerKey.value;
  useEffect(() => {
    if (!key) return;
    const admin = adminClient();
    void admin.GET('/_mock/webhook-endpoints').then((result) => (result.data ? setEndpoints(result.data.payload.data) : setProblem(problemOf(result))));
    void admin.GET('/_mock/events', { params: { query: { limit: 100 } } }).then((result) => (result.data ? setEvents(result.data.payload.data) : setProblem(problemOf(result))));
  }, [key, version]);
  if (!key) return <Notice>Webhook endpoints and events belong to a partner: enter its API key above.</Notice>;

  const act = (done: string, call: () => Promise<CallResult>) => void call().then(settle(done));
  const admin = adminClient();
  return (
    <div class="stack">
      {notices}
      <Panel
        title="Endpoints"
        actions={
          <button type="button" onClick={reload}>
            Refresh
          </button>
        }
      >
        {endpoints.length === 0 ? <p class="muted">No endpoint: events go to the mock's default endpoint (--webhook-url), if it has one.</p> : null}
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => (
              <tr>
                <td>
                  <b>{endpoint.url}</b>
                  <br />
                  <span class="muted">
                    {endpoint.id}
                    {endpoint.description ? ` · ${endpoint.description}` : ''}
                  </span>
                  {endpoint.relay ? (
                    <>
                      <br />
                      <span class="muted">
                        Relays a sandbox's events sent to <code>{endpoint.relay.url}</code> (signed with the {endpoint.relay.signWith === 'upstream' ? "sandbox's" : "endpoint's"} secret)
                      </span>
                      {endpoint.relay.refusals.last ? (
                        <>
                          <br />
                          <span class="muted">
                            {endpoint.relay.refusals.count} refused (signature {endpoint.relay.refusals.last.signature}), the last at {endpoint.relay.refusals.last.at}: {endpoint.relay.refusals.last.reason}
                          </span>
                        </>
                      ) : null}
                    </>
                  ) : null}
                </td>
                <td>{endpoint.enabledEvents.join(', ')}</td>
                <td>
                  {endpoint.status}
                  {endpoint.disabled ? ` (${endpoint.disabled.reason})` : ''}
                  {endpoint.secretRotation ? <span class="muted"> · previous secret until {endpoint.secretRotation.previousSecretExpiresAt}</span> : null}
                </td>
                <td class="actions">
                  <button type="button" onClick={() => act(`Secret of ${endpoint.id} rotated.`, () => admin.POST('/_mock/webhook-endpoints/{endpointId}/rotate-secret', { params: { path: { endpointId: endpoint.id } }, body: {} }))}>
                    Rotate secret
                  </button>
                  <button type="button" disabled={!endpoint.disabled} onClick={() => act(`${endpoint.id} re-enabled.`, () => admin.POST('/_mock/webhook-endpoints/{endpointId}/reenable', { params: { path: { endpointId: endpoint.id } } }))}>
                    Re-enable
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <NewEndpoint onCreated={reload} onProblem={setProblem} />
      </Panel>
      <Panel title="Events">
        {events.length === 0 ? <p class="muted">No events yet: they come as formations move (Customers and companies).</p> : null}
        <ol class="events">
          {events.map((event) => (
            <li>
              <details>
                <summary>
                  <When at={event.createdAt} /> <b>{event.type}</b> <span class="muted">{event.id}</span>{' '}
                  {event.deliveries.map((delivery) => (
                    <span class={`tag delivery-${delivery.state}`}>
                      {delivery.endpointId}: {delivery.state}
                    </span>
                  ))}
                </summary>
                <div class="side-by-side">
                  <section aria-label={`Payload of ${event.id}`}>
                    <h3>Payload</h3>
                    <Json value={event.payload} label={`Payload of ${event.id}`} />
                  </section>
                  <section aria-label={`Deliveries of ${event.id}`}>
                    <h3>Deliveries</h3>
                    {event.deliveries.map((delivery) => (
                      <div class="delivery">
                        <p>
                          To <b>{delivery.endpointId}</b>: {delivery.state}{' '}
                          <button type="button" onClick={() => act(`${event.id} sent again to ${delivery.endpointId}.`, () => admin.POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: event.id } }, body: { endpointId: delivery.endpointId } }))}>
                            Redeliver
                          </button>
                        </p>
                        <table class="grid">
                          <thead>
                            <tr>
                              <th scope="col">#</th>
                              <th scope="col">At</th>
                              <th scope="col">Status</th>
                              <th scope="col">ms</th>
                              <th scope="col">Outcome</th>
                            </tr>
                          </thead>
                          <tbody>
                            {delivery.attempts.map((attempt) => (
                              <tr>
                                <td>{attempt.attempt}</td>
                                <td>
                                  <When at={attempt.at} />
                                </td>
                                <td>{attempt.status ? <StatusBadge status={attempt.status} /> : '—'}</td>
                                <td>{attempt.durationMs.toFixed(1)}</td>
                                <td>
                                  {attempt.outcome}
                                  {attempt.error ? ` — ${attempt.error}` : ''}
                                </td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </div>
                    ))}
                  </section>
                </div>
              </details>
            </li>
          ))}
        </ol>
      </Panel>
    </div>
  );
}

function NewEndpoint({ onCreated, onProblem }: { onCreated: () => void; onProblem: (problem: string) => void }) {
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string>();
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        void adminClient()
          .POST('/_mock/webhook-endpoints', { body: { url } })
          .then((result) => {
            if (!result.data) return onProblem(problemOf(result));
            setSecret(result.data.payload.secret);
            setUrl('');
            onCreated();
          });
      }}
    >
      <label>
        New endpoint URL
        <input type="url" required value={url} size={40} placeholder="http://localhost:3000/webhooks" onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Add endpoint</button>
      {secret ? (
        <span class="muted">
          Its signing secret (shown once): <code>{secret}</code>
        </span>
      ) : null}
    </form>
  );
}
