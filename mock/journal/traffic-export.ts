/**
 * `GET /_mock/requests/export`: the request journal as a traffic document (the admin contract's
 * `TrafficRecording`), oldest request first, for a review of a contract change to replay. Each entry becomes an
 * exchange with what the journal kept of it (bodies cut to its bound are marked `truncated`); events the webhook
 * relay received are not API traffic and are left out, as are the requests a tool of the mock sent itself (the
 * console's own reads, tool-mark.ts), and entries whose path the journal cut (their route
 * is not known), counted in `omitted`.
 */
import { answeredByUpstream } from '../pipeline/exchange.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import type { RequestRecord } from './journal-records.ts';
import { maxJournalPathLength, type JournalFilters, type RequestJournal } from './request-journal.ts';
import { trafficDocument } from './traffic-document.ts';
import { keptHeaders, type TrafficExchange, type TrafficHeaderNames, type TrafficSource } from './traffic-exchange.ts';

/**
 * Entries read from the store, and encoded, before the event loop is given back: about 10 ms of work for entries
 * of a few kilobytes, so that an export delays no other request by much more.
 */
const pageSize = 100;

export function trafficExportHandlers(options: { journal: RequestJournal; names: TrafficHeaderNames; source: Omit<TrafficSource, 'from'> }): Pick<AdminHandlers, 'exportRequests'> {
  const { journal, names } = options;
  const source: TrafficSource = { ...options.source, from: 'journal' };
  return {
    async exportRequests({ partner }) {
      // A tool's own requests (the console's reads) are not the partner's traffic.
      const filters: JournalFilters = { tool: 'none', ...(partner === undefined ? {} : { partnerId: partner.id }) };
      // One at a time: each holds its document (up to the contract's bound) until it is sent, and several at once
      // would hold that many; the others wait their turn, which they would take anyway on the event loop.
      const file = await oneAtATime(() => trafficDocument(source, pagesOf(journal, filters, names)));
      return { status: 200, file, contentType: 'application/json' };
    },
  };
}

let exporting: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = exporting.then(work, work);
  exporting = turn.catch(() => undefined);
  return turn;
}

async function* pagesOf(journal: RequestJournal, filters: JournalFilters, names: TrafficHeaderNames): AsyncIterable<{ exchanges: TrafficExchange[]; omitted: number }> {
  for (let after = -1, more = true; more; ) {
    const page = await journal.wholeSince(after, filters, pageSize);
    const exchanges: TrafficExchange[] = [];
    let omitted = 0;
    for (const record of page.entries) {
      if (record.webhook !== undefined) continue;
      if (pathWasCut(record) || record.request === undefined) omitted += 1;
      else exchanges.push(exchangeOf(record, record.request, names));
    }
    yield { exchanges, omitted };
    ({ last: after, more } = page);
  }
}

/** The journal cuts a long path, ending it with `…` (request-journal.ts): such a path routes nowhere it went. */
function pathWasCut(record: RequestRecord): boolean {
  return record.path.length >= maxJournalPathLength - 1 && record.path.endsWith('…');
}

function exchangeOf(record: RequestRecord, request: NonNullable<RequestRecord['request']>, names: TrafficHeaderNames): TrafficExchange {
  const { response } = record;
  return {
    request: {
      operationId: record.operationId,
      method: record.method,
      path: record.path,
      query: request.query,
      queryTruncated: request.queryTruncated,
      headers: keptHeaders(request.headers, names.request),
      body: request.body,
    },
    answer: response ? { status: record.status, headers: keptHeaders(response.headers, names.answer), body: response.body } : null,
    answeredBy: answeredByUpstream(record) ? 'upstream' : 'mock',
  };
}
