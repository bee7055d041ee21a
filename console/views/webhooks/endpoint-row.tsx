/** One endpoint: where it sends, its relay if it has one, what it subscribes to, its state, and its controls. */
import { useState } from 'preact/hooks';
import { adminClient, type AdminSchemas } from '../../api.ts';
import { CopyButton, type CallResult } from '../../ui/actions.tsx';

type Endpoint = AdminSchemas['WebhookEndpoint'];

export function EndpointRow({ endpoint, settle }: { endpoint: Endpoint; settle: (message: string) => (result: CallResult) => void }) {
  const admin = adminClient();
  const path = { params: { path: { endpointId: endpoint.id } } };
  return (
    <tr>
      <td>
        <b class="endpoint-url">{endpoint.url}</b>
        <br />
        <span class="muted">
          {endpoint.id}
          {endpoint.description ? ` · ${endpoint.description}` : ''}
        </span>
        <Relay endpointId={endpoint.id} relay={endpoint.relay} settle={settle} />
      </td>
      <td>{endpoint.enabledEvents.join(', ')}</td>
      <td>
        {endpoint.status}
        {endpoint.disabled ? ` (${endpoint.disabled.reason})` : ''}
        {endpoint.secretRotation ? <span class="muted"> · previous secret until {endpoint.secretRotation.previousSecretExpiresAt}</span> : null}
      </td>
      <td class="actions">
        <button type="button" onClick={() => void admin.POST('/_mock/webhook-endpoints/{endpointId}/rotate-secret', { ...path, body: {} }).then(settle(`Secret of ${endpoint.id} rotated.`))}>
          Rotate secret
        </button>
        <button type="button" disabled={!endpoint.disabled} onClick={() => void admin.POST('/_mock/webhook-endpoints/{endpointId}/reenable', path).then(settle(`${endpoint.id} re-enabled.`))}>
          Re-enable
        </button>
      </td>
    </tr>
  );
}

/**
 * The endpoint's relay of a sandbox's events: its URL, which every endpoint has from the start (give it to the
 * sandbox's portal), and then the secret the sandbox shows for it; until it is set, what arrives is refused.
 */
function Relay({ endpointId, relay, settle }: { endpointId: string; relay: Endpoint['relay']; settle: (message: string) => (result: CallResult) => void }) {
  const [secret, setSecret] = useState('');
  const last = relay.refusals.last;
  return (
    <div class="relay">
      <span class="muted">
        Relay URL for a sandbox: <code>{relay.url}</code> <CopyButton label="Copy" text={() => relay.url} />
      </span>
      {relay.state === 'relaying' ? (
        <span class="muted"> · relaying, signed with the {relay.signWith === 'upstream' ? "sandbox's" : "endpoint's"} secret</span>
      ) : (
        <form
          class="inline relay-secret"
          aria-label={`The sandbox's secret for ${endpointId}`}
          onSubmit={(event) => {
            event.preventDefault();
            void adminClient()
              .PATCH('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId } }, body: { relay: { secret } } })
              .then(settle(`${endpointId} relays the sandbox's events.`));
          }}
        >
          <label>
            The sandbox's secret for it
            <input type="password" autocomplete="off" spellcheck={false} size={24} required value={secret} placeholder="whsec_…" onInput={(event) => setSecret((event.currentTarget as HTMLInputElement).value)} />
          </label>
          <button type="submit">Set</button>
        </form>
      )}
      {last ? (
        <span class="muted">
          {relay.refusals.count} refused ({last.signature}), the last at {last.at}: {last.reason}
        </span>
      ) : null}
    </div>
  );
}
