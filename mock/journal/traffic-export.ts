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

/** Entries read from the store at a time. */
const pageSize = 1000;

export function trafficExportHandlers(options: { journal: RequestJournal; names: TrafficHeaderNames; source: Omit<TrafficSource, 'from'> }): Pick<AdminHandlers, 'exportRequests'> {
  const { journal, names } = options;
  const source: TrafficSource = { ...options.source, from: 'journal' };
  return {
    async exportRequests({ partner }) {
      // A tool's own requests (the console's reads) are not the partner's traffic.
      const filters: JournalFilters = { tool: 'none', ...(partner === undefined ? {} : { partnerId: partner.id }) };
      const exchanges: TrafficExchange[] = [];
      let omitted = 0;
      for (let after = -1, more = true; more; ) {
        const page = await journal.wholeSince(after, filters, pageSize);
        for (const record of page.entries) {
          if (record.webhook !== undefined) continue;
          if (pathWasCut(record) || record.request === undefined) omitted += 1;
          else exchanges.push(exchangeOf(record, record.request, names));
        }
        ({ last: after, more } = page);
      }
      return { status: 200, file: Buffer.from(trafficDocument(source, exchanges, omitted)), contentType: 'application/json' };
    },
  };
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
