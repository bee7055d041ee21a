/** The partner's webhook endpoints as the mock holds them, and a form to add one. */
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';
import { TableHead } from '../../ui/text.tsx';
import { EndpointRow } from './endpoint-row.tsx';
import { NewEndpoint } from './new-endpoint.tsx';
import { usePartnerEndpoints } from './partner-endpoints.ts';

export function EndpointsPanel({ outcome }: { outcome: ReturnType<typeof useOutcome> }) {
  const endpoints = usePartnerEndpoints(outcome.setProblem);
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
