/**
 * Requests: what the mock answered, live and newest first. An entry opens beside the list with the request and the
 * answer side by side (headers and bodies), the contract violation if the mock's answer broke the contract, and
 * the request as a `curl` command to send it again.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { adminClient, problemOf, type JournalEntry, type JournalExchange } from '../api.ts';
import { contract } from '../contract.ts';
import { adminToken, maskedKey, partnerKey } from '../session.ts';
import { followJournal } from '../stream.ts';
import { CopyButton, HeadersTable, Json, Notice, Panel, StatusBadge, When } from '../ui.tsx';
import { VirtualRows } from './virtual-rows.tsx';

/** Entries kept in the page at most; older ones are read again from the journal on demand. */
const maxEntries = 10_000;
const rowHeight = 34;

interface Filters {
  operationId: string;
  status: string;
  errorCode: string;
}

export function RequestsView() {
  const [filters, setFilters] = useState<Filters>({ operationId: '', status: '', errorCode: '' });
  const [entries, setEntries] = useState<{ rows: JournalEntry[] }>({ rows: [] });
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<string>();
  const [live, setLive] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [openId, setOpenId] = useState<string>();
  const key = partnerKey.value;
  const token = adminToken.value;
  const query = useMemo(
    () => ({ ...(filters.operationId ? { operationId: filters.operationId } : {}), ...(filters.status ? { status: Number(filters.status) } : {}), ...(filters.errorCode ? { errorCode: filters.errorCode } : {}) }),
    [filters],
  );

  useEffect(() => {
    const stop = new AbortController();
    const seen = new Set<string>();
    const add = (added: JournalEntry[]) => {
      const fresh = added.filter((entry) => !seen.has(entry.id));
      if (fresh.length === 0) return;
      for (const entry of fresh) seen.add(entry.id);
      setEntries((current) => ({ rows: [...fresh.reverse(), ...current.rows].slice(0, maxEntries) }));
    };
    const readFirstPage = async () => {
      const page = await adminClient().GET('/_mock/requests', { params: { query: { limit: 200, ...query } }, signal: stop.signal });
      if (!page.data) return setProblem(problemOf(page));
      setProblem(undefined);
      // Entries streamed while the page was read may be newer or older than its own: the two are merged by time.
      const fresh = page.data.payload.data.filter((entry) => !seen.has(entry.id));
      for (const entry of fresh) seen.add(entry.id);
      setEntries((current) => ({ rows: [...current.rows, ...fresh].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, maxEntries) }));
      setOlderCursor(page.data.payload.nextCursor);
    };
    setEntries({ rows: [] });
    setLive('connecting');
    // The stream first, so that nothing answered while the first page is read is missed (duplicates are dropped).
    followJournal({
      key,
      token,
      signal: stop.signal,
      filters: query,
      onEntry: (entry) => add([entry]),
      onState: setLive,
    });
    void readFirstPage().catch((error: unknown) => stop.signal.aborted || setProblem(String(error)));
    return () => stop.abort();
  }, [key, token, query]);

  const readOlder = async () => {
    if (!olderCursor) return;
    const page = await adminClient().GET('/_mock/requests', { params: { query: { limit: 200, cursor: olderCursor, ...query } } });
    if (!page.data) return setProblem(problemOf(page));
    const older = [...page.data.payload.data].reverse();
    setEntries((current) => ({ rows: [...current.rows, ...older].slice(0, maxEntries) }));
    setOlderCursor(page.data.payload.nextCursor);
  };

  const operations = contract.value?.operations ?? [];
  return (
    <div class="split">
      <Panel
        title="Requests"
        actions={
          <span class={`live live-${live}`} role="status">
            {live === 'live' ? 'Live' : live === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}
          </span>
        }
      >
        <form class="filters" onSubmit={(event) => event.preventDefault()}>
          <label>
            Operation
            <select value={filters.operationId} onChange={(event) => setFilters({ ...filters, operationId: (event.currentTarget as HTMLSelectElement).value })}>
              <option value="">Any</option>
              {operations.map((operation) => (
                <option value={operation.operationId}>{operation.operationId}</option>
              ))}
            </select>
          </label>
          <label>
            Status
            <input inputMode="numeric" size={4} value={filters.status} onChange={(event) => setFilters({ ...filters, status: (event.currentTarget as HTMLInputElement).value.trim() })} placeholder="409" />
          </label>
          <label>
            Error code
            <input size={18} value={filters.errorCode} onChange={(event) => setFilters({ ...filters, errorCode: (event.currentTarget as HTMLInputElement).value.trim() })} placeholder="E_NAME_UNAVAILABLE" />
          </label>
        </form>
        {problem ? <Notice kind="error">{problem}</Notice> : null}
        <div class="row row-head" aria-hidden="true">
          <span>Time</span>
          <span>Status</span>
          <span>Request</span>
          <span>Operation</span>
          <span>Partner</span>
          <span>ms</span>
        </div>
        <VirtualRows
          label="Requests, newest first"
          rows={entries.rows}
          rowHeight={rowHeight}
          height={560}
          keyOf={(entry) => entry.id}
          render={(entry) => <EntryRow entry={entry} open={entry.id === openId} onOpen={() => setOpenId(entry.id)} />}
        />
        <p class="list-foot">
          {entries.rows.length} shown{entries.rows.length >= maxEntries ? ` (the newest ${maxEntries})` : ''}.{' '}
          {olderCursor && entries.rows.length < maxEntries ? (
            <button type="button" onClick={() => void readOlder()}>
              Load older
            </button>
          ) : null}
        </p>
      </Panel>
      {openId ? <EntryDetail id={openId} onClose={() => setOpenId(undefined)} /> : <Panel title="Request">{<p class="muted">Choose a request to see what was sent and answered.</p>}</Panel>}
    </div>
  );
}

function EntryRow({ entry, open, onOpen }: { entry: JournalEntry; open: boolean; onOpen: () => void }) {
  return (
    <button type="button" class={`row entry${open ? ' open' : ''}`} aria-pressed={open} onClick={onOpen} data-request-id={entry.requestId}>
      <When at={entry.at} />
      <StatusBadge status={entry.status} />
      <span class="target">
        <b>{entry.method}</b> {entry.path}
      </span>
      <span class="operation">
        {entry.operationId ?? '—'}
        {entry.forced ? <span class="tag tag-forced">forced</span> : null}
        {entry.replayed ? <span class="tag">replayed</span> : null}
        {entry.upstream ? <span class="tag">{entry.upstream.outcome === 'answered' ? `upstream ${entry.upstream.status ?? ''}` : `upstream ${entry.upstream.outcome}`}</span> : null}
        {entry.contractViolations ? <span class="tag tag-violation">broke the contract</span> : null}
        {entry.webhook ? <span class={entry.webhook.violations.length > 0 || entry.webhook.signature !== 'valid' ? 'tag tag-violation' : 'tag'}>{entry.webhook.type ?? 'webhook'} {entry.webhook.signature === 'valid' ? entry.webhook.forwarded : `signature ${entry.webhook.signature}`}</span> : null}
        {entry.errorCode ? <span class="code">{entry.errorCode}</span> : null}
      </span>
      <span class="partner">{entry.partner ?? 'no key'}</span>
      <span class="duration">{entry.durationMs.toFixed(1)}</span>
    </button>
  );
}

function EntryDetail({ id, onClose }: { id: string; onClose: () => void }) {
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
      {entry ? (
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
      ) : problem ? null : (
        <p class="muted">Loading…</p>
      )}
    </Panel>
  );
}

/** How something broke the contract, each violation a line: an alert, so a screen reader says it at once. */
function Violations({ title, violations }: { title: string; violations: readonly string[] }) {
  return (
    <div class="violations" role="alert">
      <h3>{title}</h3>
      <ul>
        {violations.map((violation) => (
          <li>{violation}</li>
        ))}
      </ul>
    </div>
  );
}

/** What the webhook relay made of an event a sandbox sent. */
function RelayVerdict({ verdict }: { verdict: NonNullable<JournalExchange['webhook']> }) {
  const forwarded = {
    queued: `queued for ${verdict.endpointId}`,
    duplicate: 'not forwarded again: relayed to this endpoint before',
    unsubscribed: 'not forwarded: the endpoint does not subscribe to its type',
    'switched-off': 'not forwarded: the endpoint is switched off',
    refused: 'not forwarded',
  }[verdict.forwarded];
  return (
    <>
      <p class="summary">
        Webhook event {verdict.eventId ?? '(no webhook-id)'} · {verdict.type ?? '(no type)'} · signature {verdict.signature} · {forwarded}
      </p>
      {verdict.violations.length > 0 ? <Violations title="The event breaks the contract's webhooks" violations={verdict.violations} /> : null}
    </>
  );
}

function Message({ title, message }: { title: string; message: JournalExchange['request'] | JournalExchange['response'] }) {
  return (
    <section class="message" aria-label={title}>
      <h3>{title}</h3>
      {message ? (
        <>
          <HeadersTable headers={Object.entries(message.headers)} />
          {message.body === null ? (
            <p class="muted">No body.</p>
          ) : message.body.text === null ? (
            <p class="muted">{message.body.bytes} bytes, not text (not kept).</p>
          ) : (
            <>
              <Json value={message.body.text} label={`${title} body`} />
              {message.body.truncated ? <p class="muted">Cut: the first {message.body.text.length} characters of {message.body.bytes} bytes.</p> : null}
            </>
          )}
        </>
      ) : (
        <p class="muted">Nothing {title === 'Answer' ? 'was answered (the client left first, or it was refused before it was read)' : 'was kept'}.</p>
      )}
    </section>
  );
}

/** Headers a command sends by itself, or that describe the connection rather than the request. */
const leftOut = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'transfer-encoding']);

/**
 * The request as a `curl` command against this mock. The key is the session's when it is the one masked in the
 * journal, and `$API_KEY` otherwise; a body that was cut or not kept cannot be sent again, and the command says so.
 */
export function curlOf(entry: JournalExchange): string {
  const request = entry.request;
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const url = `${location.origin}${entry.path}${request?.query ? `?${request.query}` : ''}`;
  const parts = ['curl', '-i', ...(entry.method === 'GET' ? [] : ['-X', entry.method]), quote(url)];
  for (const [name, value] of Object.entries(request?.headers ?? {})) {
    // A header the journal masked cannot be sent again as it was: left out, but for the key (below).
    if (leftOut.has(name) || (value === '[masked]' && name !== 'authorization')) continue;
    let sent = value;
    if (name === 'authorization') sent = partnerKey.value && entry.partner && maskedKey(partnerKey.value) === entry.partner ? partnerKey.value : '$API_KEY';
    parts.push('-H', name === 'authorization' && sent === '$API_KEY' ? `"authorization: $API_KEY"` : quote(`${name}: ${sent}`));
  }
  const body = request?.body;
  if (body?.text != null) parts.push('--data-raw', quote(body.text));
  const command = parts.join(' ');
  const notes = [
    ...(body && (body.text === null || body.truncated) ? [`# The body (${body.bytes} bytes) was not kept whole: add it before sending.`] : []),
    ...(request?.queryTruncated ? ['# The query string was not kept whole: complete it before sending.'] : []),
  ];
  return [...notes, command].join('\n');
}
