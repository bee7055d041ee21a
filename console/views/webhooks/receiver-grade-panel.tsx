/**
 * Test your receiver: the graded battery of the deliveries a receiver must get right (`gradeWebhookReceiver`, the
 * same as `npm run grade:receiver`), sent to one of the partner's endpoints with its secret, and its report: each
 * case passed, failed, a warning or skipped, with what was sent and what came back.
 */
import { useState } from 'preact/hooks';
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';
import { usePartnerEndpoints } from './partner-endpoints.ts';
import { ReceiverGradeReport } from './receiver-grade-report.tsx';

export function ReceiverGradePanel({ outcome }: { outcome: ReturnType<typeof useOutcome> }) {
  const endpoints = usePartnerEndpoints(outcome.setProblem);
  const [chosen, setChosen] = useState('');
  const [probeUrl, setProbeUrl] = useState('');
  const [running, setRunning] = useState(false);
  const [grade, setGrade] = useState<AdminSchemas['ReceiverGrade']>();
  const endpointId = endpoints.some((endpoint) => endpoint.id === chosen) ? chosen : (endpoints[0]?.id ?? '');
  const run = async () => {
    setRunning(true);
    const result = await adminClient().POST('/_mock/webhook-endpoints/{endpointId}/receiver-grade', { params: { path: { endpointId } }, body: probeUrl ? { probeUrl } : {} });
    setRunning(false);
    if (result.data) {
      setGrade(result.data.payload);
      outcome.setProblem(undefined);
    } else outcome.setProblem(problemOf(result));
  };
  return (
    <Panel title="Test your receiver">
      <p class="muted">
        Sends the endpoint's receiver every case a receiver must get right, signed with the endpoint's newest secret: each event type, forged and stale deliveries it must refuse, a secret rotation, the same webhook-id twice, an event type and a property the contract may add, a late copy, and how fast it answers.
      </p>
      {endpoints.length === 0 ? <p class="muted">Add an endpoint first: the battery goes to its URL.</p> : null}
      <form
        class="inline"
        aria-label="Grade a receiver"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label>
          Endpoint
          <select value={endpointId} onChange={(event) => setChosen((event.currentTarget as HTMLSelectElement).value)}>
            {endpoints.map((endpoint) => (
              <option value={endpoint.id}>{endpoint.url}</option>
            ))}
          </select>
        </label>
        <label>
          Probe URL (optional: GET ?webhook-id= answers {'{"processed": N}'})
          <input type="url" size={36} value={probeUrl} placeholder="http://localhost:3000/webhooks/probe" onInput={(event) => setProbeUrl((event.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary" disabled={running || endpointId === ''}>
          {running ? 'Grading…' : 'Run the battery'}
        </button>
      </form>
      {grade ? <ReceiverGradeReport grade={grade} /> : null}
    </Panel>
  );
}
