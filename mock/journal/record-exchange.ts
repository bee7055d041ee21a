/**
 * One log line per request (id, operation, status, duration), and the same in the request journal; or the log line
 * alone (`createExchangeLogger`).
 *
 * A request whose client left before its body was whole is journaled as 499 (nginx's "client closed request") and
 * logged at info: it did happen, and someone looking for it in the journal finds it, but nobody got an answer and
 * the mock did nothing wrong, so it is neither a 5xx nor an error. One answered on its socket while its body was
 * read (broken chunk framing, too slow: see http/client-error.ts) is journaled with the status it was sent.
 */
import type { Logger } from 'pino';
import { clientClosedRequest, type RequestAborted } from '../http/cut-short.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { holdsCredential, maskUrl } from '../../contract-model/credentials.ts';
import { capturedBody, capturedHeaders, capturedQuery, type CapturedMessage, type CapturedRequest } from './captured-message.ts';
import type { RequestRecord } from './journal-records.ts';
import type { RequestJournal } from './request-journal.ts';
import { toolOf } from './tool-mark.ts';

export function createExchangeRecorder(options: { logger: Logger; journal: RequestJournal }): (exchange: Exchange, aborted?: RequestAborted) => void {
  const lines = exchangeLines(options.logger);
  // The upstream's URL, as it is shown: the same at every request of a proxy, so masked once.
  const shownUpstream = { url: '', shown: '' };
  return (exchange, aborted) => {
    const outcome = outcomeOf(exchange, aborted);
    const refused = exchange.request.refusal;
    // Built by assignment rather than spread from conditional objects: it is made at every request.
    const record: RequestRecord = {
      atMs: Date.now(),
      requestId: exchange.requestId,
      method: exchange.method,
      path: exchange.url.pathname,
      operationId: exchange.operation?.operationId ?? null,
      status: outcome.status,
      durationMs: outcome.durationMs,
      partner: exchange.partner?.maskedKey ?? null,
      replayed: exchange.replayed === true,
      errorCode: outcome.errorCode,
    };
    const partnerId = exchange.partner?.id ?? exchange.journalNote?.partnerId;
    if (partnerId !== undefined) record.partnerId = partnerId;
    const tool = toolOf(exchange.request.headers);
    if (tool !== undefined) record.tool = tool;
    if (exchange.forced) record.forced = exchange.forced;
    if (exchange.contractViolations) record.contractViolations = exchange.contractViolations;
    if (exchange.upstream) {
      if (exchange.upstream.url !== shownUpstream.url) Object.assign(shownUpstream, { url: exchange.upstream.url, shown: maskUrl(exchange.upstream.url) });
      record.upstream = { ...exchange.upstream, url: shownUpstream.shown };
    }
    if (exchange.requestViolations) record.requestViolations = exchange.requestViolations;
    if (exchange.journalNote?.webhook) record.webhook = exchange.journalNote.webhook;
    record.request = requestOf(exchange);
    record.response = aborted && !refused ? null : responseOf(exchange);
    options.journal.add(record);
    logExchange(lines, exchange, outcome, aborted);
  };
}

/**
 * The log line alone, for requests that are logged but not journaled (the admin routes: the journal is what they
 * read, not what they add to).
 */
export function createExchangeLogger(options: { logger: Logger }): (exchange: Exchange, aborted?: RequestAborted) => void {
  const lines = exchangeLines(options.logger);
  return (exchange, aborted) => logExchange(lines, exchange, outcomeOf(exchange, aborted), aborted);
}

/**
 * The logger of the per-request lines: the mock's own, without its redaction. A line is made here of fields the
 * mock chose (ids, status, duration, a path), never of headers, so there is nothing to redact; and looking for
 * `authorization` in every line was most of what formatting one cost (1.1 µs of 1.8). Keys and secrets in a path
 * are masked with every other line's as it is written (config/logger.ts).
 */
function exchangeLines(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}

interface Outcome {
  status: number;
  durationMs: number;
  errorCode: string | null;
}

/** What became of a request, as its journal entry and its log line both say it. */
function outcomeOf(exchange: Exchange, aborted: RequestAborted | undefined): Outcome {
  const durationMs = Number(process.hrtime.bigint() - exchange.startedAt) / 1e6;
  const refused = exchange.request.refusal;
  return {
    status: refused?.status ?? (aborted ? clientClosedRequest : (exchange.response?.status ?? 500)),
    durationMs: Math.round(durationMs * 1000) / 1000,
    errorCode: refused ? refused.code : aborted ? null : errorCodeOf(exchange.response?.json),
  };
}

/** One line per request: a 5xx at error level, anything else at info. */
function logExchange(logger: Logger, exchange: Exchange, outcome: Outcome, aborted: RequestAborted | undefined): void {
  warnOfCredentialId(logger, exchange);
  const { status } = outcome;
  const level = status >= 500 ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const refused = exchange.request.refusal;
  logger[level](
    {
      requestId: exchange.requestId,
      operationId: exchange.operation?.operationId ?? null,
      status,
      ms: outcome.durationMs,
      ...(outcome.errorCode ? { code: outcome.errorCode } : {}),
      ...(exchange.replayed ? { replayed: true } : {}),
      ...(exchange.forced ? { forced: exchange.forced } : {}),
      ...(aborted && !refused ? { reason: `the client left before its request was whole (${aborted.reason})` } : {}),
    },
    `${exchange.method} ${exchange.url.pathname} ${status}`,
  );
}

/** Says so when the `x-request-id` sent was not taken because it looked like a credential (http/request-id.ts). */
function warnOfCredentialId(logger: Logger, exchange: Exchange): void {
  const sent = exchange.request.headers['x-request-id'];
  if (typeof sent === 'string' && sent !== exchange.requestId && holdsCredential(sent)) {
    logger.warn({ requestId: exchange.requestId }, 'x-request-id not taken: the id sent looks like an API key or a webhook secret, which an id would carry into logs; the request has a new one');
  }
}

function requestOf(exchange: Exchange): CapturedRequest {
  const headers = exchange.request.headers;
  return { ...capturedQuery(exchange.request.url), headers: capturedHeaders(headers, exchange.partner?.maskedKey), body: capturedBody(exchange.rawBody, headers['content-type']) };
}

/** What was answered; a refusal answered on the socket (client-error.ts) is known by its status and code only. */
function responseOf(exchange: Exchange): CapturedMessage | null {
  const answer = exchange.response;
  if (!answer || exchange.request.refusal) return null;
  const headers = answer.finalHeaders ?? answer.headers;
  // Each cookie a header line of its own on the wire; one value here (a journal's header is one line), the cookies
  // apart by ` | `, which no cookie's syntax has (RFC 6265: a value holds no space, an attribute no `|`).
  const written = answer.setCookies?.length ? { ...headers, 'set-cookie': answer.setCookies.join(' | ') } : headers;
  return { headers: capturedHeaders(written), body: exchange.method === 'HEAD' ? null : capturedBody(answer.body, headers['content-type']) };
}

function errorCodeOf(json: unknown): string | null {
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' ? code : null;
}
