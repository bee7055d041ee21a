/**
 * A `fetch` that retries what the contract says may succeed later: `429`, `500`, `502`, `503`, `504`,
 * `409 E_IDEMPOTENCY_KEY_IN_PROGRESS`, and failures with no response. It wraps the transport rather than being
 * an openapi-fetch middleware because it needs to send the finished request (headers from the middleware
 * included) more than once: every attempt sends a clone of that one `Request`, so its body stays readable and
 * its `Idempotency-Key` and `x-request-id` are the same on every attempt.
 *
 * A request is replayed after an ambiguous failure (a 5xx, a lost connection: the server may have acted) only
 * when replaying cannot act twice: a read, or a create carrying `Idempotency-Key`. Any other write — today only
 * the sandbox's `simulateCompanyFormation`, where a second `NEXT` would move the formation one step further —
 * is retried only on `429`, which the API answers before doing anything.
 */
import { describeCall, PartnerNetworkError } from './errors.ts';
import { parseRetryAfterSeconds } from './retry-after.ts';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  maxAttempts?: number;
  /** The first backoff step; each further one doubles, with jitter (default 300 ms). */
  baseDelayMs?: number;
  /** No wait is longer, whether from backoff or from `Retry-After` (default 20 000 ms). */
  maxDelayMs?: number;
  /** How to wait; tests pass one that records the delays and does not wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
}

export type FetchLike = (request: Request) => Promise<Response>;

const retryableStatuses = new Set([500, 502, 503, 504]);
const replaySafeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const attemptsByResponse = new WeakMap<Response, number>();

/** How many attempts it took to get this response (1 when it came first time). */
export function attemptsOf(response: Response): number {
  return attemptsByResponse.get(response) ?? 1;
}

export function createRetryingFetch(fetchImpl: FetchLike | undefined, options: RetryOptions = {}): FetchLike {
  const maxAttempts = options.maxAttempts ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 300;
  const maxDelayMs = options.maxDelayMs ?? 20_000;
  const sleep = options.sleep ?? sleepUnlessAborted;
  const random = options.random ?? Math.random;
  assertRetryOptions(maxAttempts, baseDelayMs, maxDelayMs);

  const backoff = (failedAttempts: number) => {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (failedAttempts - 1));
    // "Equal jitter": at least half the step, so that clients that failed together do not retry together.
    return ceiling / 2 + (random() * ceiling) / 2;
  };

  return async (request) => {
    // Read lazily so that a global fetch replaced after the client was made (tests, instrumentation) is used.
    const send = fetchImpl ?? ((input: Request) => globalThis.fetch(input));
    const replaySafe = replaySafeMethods.has(request.method) || request.headers.has('idempotency-key');

    for (let attempt = 1; ; attempt++) {
      request.signal.throwIfAborted();
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        if (!replaySafe || attempt >= maxAttempts) {
          throw new PartnerNetworkError(error, attempt, describeCall(request));
        }
        await sleep(backoff(attempt), request.signal);
        continue;
      }

      attemptsByResponse.set(response, attempt);
      if (attempt >= maxAttempts || !(await isRetryable(response, replaySafe))) return response;

      const retryAfter = parseRetryAfterSeconds(response.headers);
      const delay = retryAfter === undefined ? backoff(attempt) : Math.min(retryAfter * 1000, maxDelayMs);
      // An unread body holds its connection until garbage collection; release it now.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}

async function isRetryable(response: Response, replaySafe: boolean): Promise<boolean> {
  if (response.status === 429) return true;
  if (!replaySafe) return false;
  if (retryableStatuses.has(response.status)) return true;
  if (response.status === 409) return (await errorCodeOf(response)) === 'E_IDEMPOTENCY_KEY_IN_PROGRESS';
  return false;
}

/** Peeks at the envelope's `error.code` without consuming the body the caller will read. */
async function errorCodeOf(response: Response): Promise<unknown> {
  try {
    const body: unknown = await response.clone().json();
    if (typeof body === 'object' && body !== null && 'error' in body) {
      const { error } = body;
      if (typeof error === 'object' && error !== null && 'code' in error) return error.code;
    }
  } catch {
    // Not JSON: not the contract's envelope, so not a retryable 409.
  }
  return undefined;
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function assertRetryOptions(maxAttempts: number, baseDelayMs: number, maxDelayMs: number): void {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new TypeError(`retry.maxAttempts must be an integer of at least 1, not ${maxAttempts}.`);
  }
  for (const [name, value] of [['baseDelayMs', baseDelayMs], ['maxDelayMs', maxDelayMs]] as const) {
    if (!Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${name} must be a finite number of milliseconds, not ${value}.`);
    }
  }
}
