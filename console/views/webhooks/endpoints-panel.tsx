/** The partner's webhook endpoints as the mock holds them, and a form to add one. */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';
import { TableHead } from '../../ui/text.tsx';
import { EndpointRow } from './endpoint-row.tsx';
import { NewEndpoint } from './new-endpoint.tsx';

type Endpoint = AdminSchemas['WebhookEndpoint'];

export function EndpointsPanel({ outcome }: { outcome: ReturnType<typeof useOutcome> }) {
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const changed = useChanges(['endpoints']);
  useEffect(() => {
    void adminClient()
      .GET('/_mock/webhook-endpoints')
      .then((result) => (result.data ? setEndpoints(result.data.payload.data) : outcome.setProblem(problemOf(result))));
  }, [partnerKey.value, changed]);
  return (
    <Panel title="Endpoints">
      {endpoints.length === 0 ? <p class="muted">No endpoint: events go to the mock's default endpoint (--webhook-url), if it has one.</p> : null}
      <table class="grid endpoints">
        <TableHead columns={['Endpoint', 'Events', 'State', 'Actions']} />
        <tbody>
          {endpoints.map((endpoint) => (
            <EndpointRow endpoint={endpoint} settle={outcome.settle} />
          ))}
        </tbody>
      </table>
      <NewEndpoint onProblem={outcome.setProblem} />
    </Panel>
  );
}
