import { performance } from 'node:perf_hooks';
import { maskCredentials } from '../../contract-model/credentials.ts';

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the attempt from outside (the dispatcher closing). */
  signal: AbortSignal;
  fetch: typeof fetch;
}

export type AttemptResult =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status?: number; error: string; durationMs: number };

/**
 * One POST of one event. Never rejects: whatever goes wrong (bad URL, refused connection, timeout, non-2xx,
 * redirect) comes back as a failure the dispatcher can journal and retry, described with any key or secret in it
 * (a redirect's location, a URL that does not parse) masked.
 */
export async function sendAttempt(request: AttemptRequest): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    const response = await request.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      // A redirect is a failure per the contract; following it would deliver to an endpoint nobody configured.
      redirect: 'manual',
      signal: AbortSignal.any([timeout, request.signal]),
    });
    // The answer is decided by the status alone; dropping the body frees the connection without waiting on it.
    await response.body?.cancel().catch(() => undefined);
    const { status } = response;
    if (status >= 200 && status < 300) return { ok: true, status, durationMs: elapsed() };
    return { ok: false, status, error: maskCredentials(describeStatus(response)), durationMs: elapsed() };
  } catch (error) {
    return { ok: false, error: maskCredentials(describeError(error, timeout, request)), durationMs: elapsed() };
  }
}

function describeStatus(response: Response): string {
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    return `redirect ${response.status}${location ? ` to ${location}` : ''} (redirects are not followed)`;
  }
  return `HTTP ${response.status}`;
}

function describeError(error: unknown, timeout: AbortSignal, request: AttemptRequest): string {
  if (timeout.aborted) return `timeout: no answer within ${request.timeoutMs} ms`;
  if (request.signal.aborted) return 'aborted: dispatcher closed';
  if (error instanceof Error) {
    // fetch reports network failures as a bare "fetch failed"; the cause says which (ECONNREFUSED, ENOTFOUND, …).
    const cause = error.cause;
    if (cause instanceof Error) return `${error.message}: ${cause.message || (cause as NodeJS.ErrnoException).code}`;
    return error.message;
  }
  return String(error);
}
