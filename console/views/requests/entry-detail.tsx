/**
 * One request whole: what was sent and answered side by side, how the proxy or the relay dealt with it, the
 * contract violations it met, and the request as a `curl` command.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type JournalExchange } from '../../api.ts';
import { CopyButton } from '../../ui/actions.tsx';
import { Notice, Panel } from '../../ui/layout.tsx';
import { StatusBadge, When } from '../../ui/text.tsx';
import { curlOf } from './curl.ts';
import { Message, RelayVerdict, Violations } from './exchange-parts.tsx';

export function EntryDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const [entry, setEntry] = useState<JournalExchange>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    setEntry(undefined);
    void adminClient()
      .GET('/_mock/requests/{entryId}', { params: { path: { entryId: id } } })
      .then((result) => (result.data ? setEntry(result.data.payload) : setProblem(problemOf(result))));
  }, [id]);
  return (
    <Panel
      title="Request"
      actions={
        <>
          {entry?.request ? <CopyButton label="Copy as curl" text={() => curlOf(entry)} /> : null}
          <button type="button" onClick={onClose} aria-label="Close the request">
            Close
          </button>
        </>
      }
    >
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {entry ? <Exchange entry={entry} /> : problem ? null : <p class="muted">Loading…</p>}
    </Panel>
  );
}

function Exchange({ entry }: { entry: JournalExchange }) {
  return (
    <div class="exchange">
      <p class="summary">
        <StatusBadge status={entry.status} /> <b>{entry.method}</b> {entry.path}
        {entry.request?.query ? `?${entry.request.query}` : ''} · {entry.operationId ?? 'no operation'} · <When at={entry.at} /> · {entry.durationMs.toFixed(1)} ms · {entry.requestId}
        {entry.forced ? (
          <span class="tag tag-forced">
            forced: {entry.forced.status} {entry.forced.example}
          </span>
        ) : null}
        {entry.replayed ? <span class="tag">idempotent replay</span> : null}
      </p>
      {entry.upstream ? (
        <p class="summary">
          Forwarded to {entry.upstream.url}: {entry.upstream.outcome === 'answered' ? `answered ${entry.upstream.status ?? ''}` : entry.upstream.outcome} in {entry.upstream.durationMs.toFixed(1)} ms
        </p>
      ) : null}
      {entry.webhook ? <RelayVerdict verdict={entry.webhook} /> : null}
      {entry.contractViolations ? (
        <Violations title={entry.upstream ? "The upstream's answer breaks the contract (passed through as it came)" : "The mock's answer broke the contract, and was replaced by this 500"} violations={entry.contractViolations} />
      ) : null}
      <div class="side-by-side">
        <Message title="Request" message={entry.request} />
        <Message title="Answer" message={entry.response} />
      </div>
    </div>
  );
}
