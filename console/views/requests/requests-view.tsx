/**
 * Requests: what the mock answered, live and newest first. An entry opens beside the list with the request and the
 * answer side by side (headers and bodies), the contract violation if the mock's answer broke the contract, and
 * the request as a `curl` command to send it again.
 */
import { useMemo, useState } from 'preact/hooks';
import { Notice, Panel } from '../../ui/layout.tsx';
import { VirtualRows } from '../../ui/virtual-rows.tsx';
import { EntryDetail } from './entry-detail.tsx';
import { EntryRow } from './entry-row.tsx';
import { noFilters, RequestFilters, queryOf, type Filters } from './request-filters.tsx';
import { maxEntries, useRequestList } from './request-list.ts';

/** Two lines (console.css): what was asked, then what marks it. */
const rowHeight = 46;

export function RequestsView() {
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [openId, setOpenId] = useState<string>();
  const query = useMemo(() => queryOf(filters), [filters]);
  const list = useRequestList(query);
  const state = { live: 'Live', reconnecting: 'Reconnecting…', connecting: 'Connecting…' }[list.live];
  return (
    <div class="split">
      <Panel
        title="Requests"
        actions={
          <span class={`live live-${list.live}`} role="status">
            {state}
          </span>
        }
      >
        <RequestFilters filters={filters} onFilters={setFilters} />
        {list.problem ? <Notice kind="error">{list.problem}</Notice> : null}
        <VirtualRows
          label="Requests, newest first"
          rows={list.rows}
          rowHeight={rowHeight}
          height={560}
          keyOf={(entry) => entry.id}
          render={(entry) => <EntryRow entry={entry} open={entry.id === openId} onOpen={() => setOpenId(entry.id)} />}
        />
        <p class="list-foot">
          {list.rows.length} shown{list.rows.length >= maxEntries ? ` (the newest ${maxEntries})` : ''}.{' '}
          {list.canReadOlder ? (
            <button type="button" onClick={() => void list.readOlder()}>
              Load older
            </button>
          ) : null}
        </p>
      </Panel>
      {openId ? <EntryDetail id={openId} onClose={() => setOpenId(undefined)} /> : <Panel title="Request">{<p class="muted">Choose a request to see what was sent and answered.</p>}</Panel>}
    </div>
  );
}
