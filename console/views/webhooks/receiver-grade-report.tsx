/** A receiver's grade as the console shows it: the verdict, then each case, opening on what was sent and what came back. */
import type { AdminSchemas } from '../../api.ts';
import { HeadersTable, Json, StatusBadge } from '../../ui/text.tsx';

type Grade = AdminSchemas['ReceiverGrade'];
type GradedCase = AdminSchemas['ReceiverGradeCase'];
type Exchange = AdminSchemas['ReceiverGradeExchange'];

/** Each outcome as a tag, in the colours the console gives deliveries and forced answers. */
const outcomeClass: Record<GradedCase['outcome'], string> = { passed: 'tag delivery-delivered', failed: 'tag delivery-failed', warning: 'tag tag-forced', skipped: 'tag' };

export function ReceiverGradeReport({ grade }: { grade: Grade }) {
  const { passed, failed, warning, skipped } = grade.totals;
  return (
    <section aria-label="Receiver grade">
      <p class="summary" role="status">
        <b>{grade.verdict === 'passed' ? 'Passed' : 'Failed'}</b>: {passed} passed, {failed} failed, {warning} {warning === 1 ? 'warning' : 'warnings'}, {skipped} skipped; {grade.requests} requests in {(grade.durationMs / 1000).toFixed(1)} s to <code>{grade.receiver}</code>
      </p>
      {grade.stopped ? <p class="muted">{grade.stopped}</p> : null}
      <ol class="events">
        {grade.cases.map((graded) => (
          <GradedCaseItem graded={graded} />
        ))}
      </ol>
    </section>
  );
}

function GradedCaseItem({ graded }: { graded: GradedCase }) {
  return (
    <li>
      <details open={graded.outcome === 'failed'}>
        <summary>
          <span class={outcomeClass[graded.outcome]}>{graded.outcome}</span> <b>{graded.id}</b> {graded.title} <span class="muted">({graded.required ? 'required' : 'should'})</span>
        </summary>
        <p>{graded.observation}</p>
        <p class="muted">Expected: {graded.expectation}</p>
        {graded.exchanges.map((exchange, index) => (
          <ExchangeView exchange={exchange} label={`${graded.id}, request ${index + 1}`} />
        ))}
      </details>
    </li>
  );
}

function ExchangeView({ exchange, label }: { exchange: Exchange; label: string }) {
  const { request, response } = exchange;
  return (
    <div class="side-by-side" aria-label={label}>
      <section aria-label={`Sent, ${label}`}>
        <h3>
          Sent: {request.method} to the {request.to}
        </h3>
        <HeadersTable headers={Object.entries(request.headers)} />
        {request.body === null ? null : <Json value={request.body} label={`Body sent, ${label}`} />}
      </section>
      <section aria-label={`Came back, ${label}`}>
        <h3>Came back</h3>
        {response ? (
          <>
            <p>
              <StatusBadge status={response.status} /> in {Math.round(exchange.durationMs)} ms{response.location ? ` (Location: ${response.location}, not followed)` : ''}
            </p>
            {response.body ? <Json value={`${response.body}${response.truncated ? ' …' : ''}`} label={`Body received, ${label}`} /> : null}
          </>
        ) : (
          <p>Nothing: {exchange.error}</p>
        )}
      </section>
    </div>
  );
}
