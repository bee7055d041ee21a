/** One request in the list: when, its status, what was asked, the operation with what marks it, who, how long. */
import type { JournalEntry } from '../../api.ts';
import { StatusBadge, When } from '../../ui/text.tsx';

export function EntryRow({ entry, open, onOpen }: { entry: JournalEntry; open: boolean; onOpen: () => void }) {
  return (
    <button type="button" class={`row entry${open ? ' open' : ''}`} aria-pressed={open} onClick={onOpen} data-request-id={entry.requestId}>
      <When at={entry.at} />
      <StatusBadge status={entry.status} />
      <span class="target">
        <b>{entry.method}</b> {entry.path}
      </span>
      <span class="operation">
        {entry.operationId ?? '—'}
        <EntryTags entry={entry} />
        {entry.errorCode ? <span class="code">{entry.errorCode}</span> : null}
      </span>
      <span class="partner">{entry.partner ?? 'no key'}</span>
      <span class="duration">{entry.durationMs.toFixed(1)}</span>
    </button>
  );
}

function EntryTags({ entry }: { entry: JournalEntry }) {
  const webhook = entry.webhook;
  return (
    <>
      {entry.tool ? <span class="tag tag-tool">{entry.tool}</span> : null}
      {entry.forced ? <span class="tag tag-forced">forced</span> : null}
      {entry.replayed ? <span class="tag">replayed</span> : null}
      {entry.upstream ? <span class="tag">{entry.upstream.outcome === 'answered' ? `upstream ${entry.upstream.status ?? ''}` : `upstream ${entry.upstream.outcome}`}</span> : null}
      {entry.contractViolations ? <span class="tag tag-violation">broke the contract</span> : null}
      {webhook ? <span class={webhook.violations.length > 0 || webhook.signature !== 'valid' ? 'tag tag-violation' : 'tag'}>{webhook.type ?? 'webhook'} {webhook.signature === 'valid' ? webhook.forwarded : `signature ${webhook.signature}`}</span> : null}
    </>
  );
}
