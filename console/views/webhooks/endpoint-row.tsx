/** One endpoint: where it sends, its relay if it has one, what it subscribes to, its state, and its controls. */
import { adminClient, type AdminSchemas } from '../../api.ts';
import type { CallResult } from '../../ui/actions.tsx';

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
        {endpoint.relay ? <Relay relay={endpoint.relay} /> : null}
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

function Relay({ relay }: { relay: NonNullable<Endpoint['relay']> }) {
  return (
    <>
      <br />
      <span class="muted">
        Relays a sandbox's events sent to <code>{relay.url}</code> (signed with the {relay.signWith === 'upstream' ? "sandbox's" : "endpoint's"} secret)
      </span>
      {relay.refusals.last ? (
        <>
          <br />
          <span class="muted">
            {relay.refusals.count} refused (signature {relay.refusals.last.signature}), the last at {relay.refusals.last.at}: {relay.refusals.last.reason}
          </span>
        </>
      ) : null}
    </>
  );
}
