/**
 * The mock as a proxy (`--upstream URL`): an API request that passed the contract's checks is forwarded to the
 * upstream (the real sandbox, or any server speaking the contract) with the caller's own key, and answered with what
 * came back, as it came back: its status, its headers (but those of the connection), its bytes. The answer is then
 * checked against the contract like any other, but passed through with what broke noted (finalise-answer.ts), since
 * the point is to see what the upstream really does.
 *
 * An upstream that cannot be reached, or answers too late, gets the API's error envelope from the proxy: `502` or
 * `504`, with `E_SERVICE_UNAVAILABLE` and a message saying which, never a hang.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { receivedHeaderText } from '../http/header-value.ts';
import type { Exchange, UpstreamOutcome } from '../pipeline/exchange.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { respond } from '../pipeline/reply.ts';

/** Headers of one connection (RFC 9110, section 7.6.1), never forwarded either way, and what fetch sets itself. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect', 'proxy-authorization', 'proxy-authenticate']);
/** What the mock answers for itself, not the upstream's: a forced answer's preference is the mock's. */
const ours = new Set(['prefer', 'x-mock-admin-token', 'cookie']);

export function forwardToUpstream(options: { url: string; timeoutMs: number; fallback: boolean; logger: Pick<Logger, 'warn'> }): Step {
  return async (exchange, next) => {
    // The routed path and the query as sent: never the raw target, which may name another host (absolute form).
    const raw = exchange.request.url ?? '/';
    const target = `${options.url}${exchange.url.pathname}${raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''}`;
    const started = performance.now();
    const outcome = (kind: UpstreamOutcome['outcome'], status?: number): UpstreamOutcome => ({ url: options.url, outcome: kind, ...(status === undefined ? {} : { status }), durationMs: Math.round((performance.now() - started) * 1000) / 1000 });
    try {
      const response = await fetch(target, {
        method: exchange.method,
        headers: forwardedHeaders(exchange),
        ...(exchange.rawBody && exchange.rawBody.length > 0 ? { body: exchange.rawBody } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const body = new Uint8Array(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (!hopByHop.has(name) && name !== 'content-encoding') headers[name] = receivedHeaderText(value);
      });
      const answer = { status: response.status, headers, body, ...jsonOf(headers['content-type'], body) };
      exchange.upstream = outcome('answered', response.status);
      if (options.fallback && lacksOperation(answer)) {
        // The steps after this one answer from the mock's own state.
        exchange.upstream.fallback = true;
        return next();
      }
      exchange.response = answer;
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      exchange.upstream = outcome(timedOut ? 'timeout' : 'unreachable');
      if (options.fallback) {
        exchange.upstream.fallback = true;
        return next();
      }
      const reason = timedOut ? `did not answer within ${options.timeoutMs} ms` : `could not be reached (${causeOf(error)})`;
      options.logger.warn({ requestId: exchange.requestId, upstream: options.url, reason }, 'upstream failed');
      respond(exchange, new ApiError(timedOut ? 504 : 502, 'E_SERVICE_UNAVAILABLE', `The upstream ${options.url} ${reason}; retry later.`));
    }
  };
}

/** The request's headers as the upstream gets them: the caller's key and idempotency key included; our request id. */
function forwardedHeaders(exchange: Exchange): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    if (value === undefined || hopByHop.has(name) || ours.has(name)) continue;
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
