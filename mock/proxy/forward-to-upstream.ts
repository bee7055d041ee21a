/**
 * The mock as a proxy (`--upstream URL`): an API request that passed the contract's checks is forwarded to the
 * upstream (the real sandbox, or any server speaking the contract) with the caller's own key, and answered with what
 * came back, as it came back: its status, its headers (but those of the connection, hop-by-hop.ts), its bytes. The
 * answer is then checked against the contract like any other, but passed through with what broke noted
 * (finalise-answer.ts), since the point is to see what the upstream really does.
 *
 * An upstream that cannot be reached, takes longer than `--upstream-timeout` to send its whole answer (head and
 * body), or sends a body over `--upstream-max-body` (bounded-body.ts: the proxy then hangs up), gets the API's error
 * envelope from the proxy: `502 E_BAD_GATEWAY` or `504 E_SERVICE_UNAVAILABLE`, with a message saying which, never a
 * hang, and never more memory than the bound.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { receivedHeaderText } from '../http/header-value.ts';
import { readBoundedBody, tooLarge } from './bounded-body.ts';
import { hopByHop } from './hop-by-hop.ts';
import type { Exchange, UpstreamOutcome } from '../pipeline/exchange.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { respond } from '../pipeline/reply.ts';
import { toolHeader } from '../journal/tool-mark.ts';

/**
 * What the mock answers for itself, not the upstream's: a forced answer's preference, the mark of its own tools'
 * requests (the console's), its admin token.
 */
const ours = new Set(['prefer', 'x-mock-admin-token', toolHeader, 'cookie']);

/** Why the proxy has no answer of the upstream's to pass on. */
interface Failure {
  outcome: Exclude<UpstreamOutcome['outcome'], 'answered'>;
  /** The upstream's status, when it answered (too large). */
  status?: number;
  reason: string;
}

export function forwardToUpstream(options: { url: string; timeoutMs: number; maxBodyBytes: number; fallback: boolean; logger: Pick<Logger, 'warn'> }): Step {
  return async (exchange, next) => {
    // The routed path and the query as sent: never the raw target, which may name another host (absolute form).
    const raw = exchange.request.url ?? '/';
    const target = `${options.url}${exchange.url.pathname}${raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''}`;
    const started = performance.now();
    const outcome = (kind: UpstreamOutcome['outcome'], status?: number): UpstreamOutcome => ({ url: options.url, outcome: kind, ...(status === undefined ? {} : { status }), durationMs: Math.round((performance.now() - started) * 1000) / 1000 });
    let failure: Failure;
    try {
      // The whole answer, head and body, within the timeout: the signal bounds the body's reading too.
      const response = await fetch(target, {
        method: exchange.method,
        headers: forwardedHeaders(exchange),
        // A Buffer over an ArrayBuffer, as every body read is (the DOM's types ask which buffer).
        ...(exchange.rawBody && exchange.rawBody.length > 0 ? { body: exchange.rawBody as Buffer<ArrayBuffer> } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      // A status no answer may have (fetch takes any three digits: 999) is no answer to pass on, nor one to journal.
      const body = isFinalStatus(response.status) ? await readBoundedBody(response, options.maxBodyBytes) : undefined;
      if (body === undefined) {
        await response.body?.cancel().catch(() => undefined);
        failure = { outcome: 'malformed', reason: `answered with status ${response.status}, which is not one an HTTP answer may have (200 to 599)` };
      } else if (body === tooLarge) {
        failure = { outcome: 'too-large', status: response.status, reason: `sent an answer over ${Math.round(options.maxBodyBytes / 1024)} KiB (--upstream-max-body), and the proxy stopped reading it` };
      } else {
        // No prototype: a header named `__proto__` is a header, not the object's prototype.
        const headers: Record<string, string> = Object.create(null);
        const ofConnection = hopByHop(response.headers.get('connection'));
        response.headers.forEach((value, name) => {
          if (!ofConnection(name) && name !== 'content-encoding' && name !== 'set-cookie') headers[name] = receivedHeaderText(value);
        });
        // Each as it came: joined, cookies would be one the client cannot read.
        const setCookies = ofConnection('set-cookie') ? [] : response.headers.getSetCookie().map(receivedHeaderText);
        const answer = { status: response.status, headers, body, ...(setCookies.length > 0 ? { setCookies } : {}), ...jsonOf(headers['content-type'], body) };
        exchange.upstream = outcome('answered', response.status);
        if (options.fallback && lacksOperation(answer)) {
          // The steps after this one answer from the mock's own state.
          exchange.upstream.fallback = true;
          return next();
        }
        exchange.response = answer;
        return;
      }
    } catch (error) {
      failure = (error as Error).name === 'TimeoutError'
        ? { outcome: 'timeout', reason: `did not send its whole answer within ${options.timeoutMs} ms` }
        : { outcome: 'unreachable', reason: `could not be reached (${causeOf(error)})` };
    }
    exchange.upstream = outcome(failure.outcome, failure.status);
    if (options.fallback) {
      exchange.upstream.fallback = true;
      return next();
    }
    options.logger.warn({ requestId: exchange.requestId, upstream: options.url, reason: failure.reason }, 'upstream failed');
    const [status, code] = failure.outcome === 'timeout' ? ([504, 'E_SERVICE_UNAVAILABLE'] as const) : ([502, 'E_BAD_GATEWAY'] as const);
    respond(exchange, new ApiError(status, code, `The upstream ${options.url} ${failure.reason}; retry later.`));
  };
}

/** A status an answer the proxy passes on may have: 1xx are not final, and a status is three digits of 1 to 5. */
const isFinalStatus = (status: number): boolean => Number.isInteger(status) && status >= 200 && status <= 599;

/** The request's headers as the upstream gets them: the caller's key and idempotency key included; our request id. */
function forwardedHeaders(exchange: Exchange): Headers {
  const headers = new Headers();
  const ofConnection = hopByHop(exchange.request.headers.connection);
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    if (value === undefined || ofConnection(name) || ours.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The same id on both sides, so that the upstream's logs and this journal name the request alike.
  headers.set('x-request-id', exchange.requestId);
  // Bytes that can be checked: fetch would otherwise ask for a compressed answer and hand it back decoded.
  headers.set('accept-encoding', 'identity');
  return headers;
}

/**
 * Whether an upstream's answer says it has no such operation, rather than no such resource: `501`, or a `404` that is
 * not the contract's `E_NOT_FOUND` (a half-built server's own page for a route it does not have).
 */
function lacksOperation(answer: { status: number; json?: unknown }): boolean {
  if (answer.status === 501) return true;
  return answer.status === 404 && (answer.json as { error?: { code?: unknown } } | undefined)?.error?.code !== 'E_NOT_FOUND';
}

function jsonOf(contentType: string | undefined, body: Uint8Array): { json?: unknown } {
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType ?? '')) return {};
  try {
    return { json: JSON.parse(Buffer.from(body).toString('utf8')) as unknown };
  } catch {
    // Not JSON after all: the contract check says so.
    return {};
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
