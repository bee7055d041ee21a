/** How an event was delivered to each endpoint: its state, every attempt, and a way to send it again. */
import { adminClient, type AdminSchemas } from '../../api.ts';
import type { CallResult } from '../../ui/actions.tsx';
import { StatusBadge, TableHead, When } from '../../ui/text.tsx';

type MockEvent = AdminSchemas['MockEvent'];

/** Each endpoint's delivery state, as tags beside an event. */
export function DeliveryTags({ event }: { event: MockEvent }) {
  return (
    <>
      {event.deliveries.map((delivery) => (
        <span class={`tag delivery-${delivery.state}`}>
          {delivery.endpointId}: {delivery.state}
        </span>
      ))}
    </>
  );
}

export function EventDeliveries({ event, settle }: { event: MockEvent; settle: (message: string) => (result: CallResult) => void }) {
  const redeliver = (endpointId: string) =>
    void adminClient()
      .POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: event.id } }, body: { endpointId } })
      .then(settle(`${event.id} sent again to ${endpointId}.`));
  return (
    <section aria-label={`Deliveries of ${event.id}`}>
      <h3>Deliveries</h3>
      {event.deliveries.map((delivery) => (
        <div class="delivery">
          <p>
            To <b>{delivery.endpointId}</b>: {delivery.state}{' '}
            <button type="button" onClick={() => redeliver(delivery.endpointId)}>
              Redeliver
            </button>
          </p>
          <table class="grid">
            <TableHead columns={['#', 'At', 'Status', 'ms', 'Outcome']} />
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
  );
}
