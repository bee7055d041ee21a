/**
 * Idempotency of the creates, as the contract publishes it: same key and body → the stored answer again with
 * `Idempotent-Replayed: true` (nothing runs, nothing is sent); same key, other body → 409 REUSED; same key while
 * the first is still running → 409 IN_PROGRESS with Retry-After. 4xx outcomes are stored, 429 and 5xx are not.
 * Records live in the store, per partner: a replay works after a restart and on any replica, and the key is held
 * by one request at a time across all of them, under a lock that a crashed holder cannot keep past its expiry.
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import { fingerprintOf } from '../idempotency/fingerprint.ts';
import type { IdempotencyLock, IdempotencyRecords } from '../store/store.ts';

/** The contract's Idempotency-Key pattern (generated/contract-facts.ts). */
const validKey = new RegExp(contractFacts.headerFormats.idempotencyKey);

/** How long a key stays held without a sign of life from its request; renewed while the request runs. */
export const idempotencyLockMs = 10_000;
const renewEveryMs = idempotencyLockMs / 3;

export function enforceIdempotency(records: IdempotencyRecords, logger: Pick<Logger, 'warn' | 'error'>): Step {
  // Owners must differ across processes too: a random prefix per process, a counter per request.
  const ownerPrefix = randomBytes(6).toString('base64url');
  let requests = 0;
  return async (exchange, next) => {
    const operation = exchange.operation;
    if (!operation?.idempotent) return next();
    const key = exchange.request.headers['idempotency-key'];
    if (key === undefined) {
      respond(exchange, new ApiError(400, 'E_IDEMPOTENCY_KEY_REQUIRED', 'Idempotency-Key is required on this operation.'));
      return;
    }
    if (typeof key !== 'string' || !validKey.test(key)) {
      respond(exchange, new ApiError(400, 'E_IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1 to 255 visible ASCII characters.'));
      return;
    }
    const lock: IdempotencyLock = { partnerId: exchange.partner?.id ?? '', scope: `${operation.operationId}\u0000${key}`, owner: `${ownerPrefix}.${(requests += 1)}` };
    const fingerprint = fingerprintOf(exchange.body, exchange.rawBody);
    const begun = await records.begin(lock, fingerprint, Date.now(), idempotencyLockMs);
    if (!begun.began) {
      const { record } = begun;
      if (record.fingerprint !== fingerprint) {
        respond(exchange, new ApiError(409, 'E_IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different body; use a fresh key for a new request.'));
      } else if (record.state === 'in-flight') {
        respond(exchange, new ApiError(409, 'E_IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry after Retry-After.', undefined, { 'retry-after': '1' }));
      } else {
        const stored = record.response;
        exchange.replayed = true;
        exchange.idempotentReplayed = 'true';
        // The original's status, body and headers, but this request's own x-request-id (the finaliser adds it, with
        // fresh RateLimit-* headers): records stored before it was left out may still carry the original's.
        const { 'x-request-id': _original, ...headers } = stored.headers;
        exchange.response = { ...stored, headers, json: typeof stored.body === 'string' ? JSON.parse(stored.body) : undefined };
      }
      return;
    }
    exchange.idempotentReplayed = 'false';
    const renewal = setInterval(() => void records.renew(lock, Date.now(), idempotencyLockMs).catch(() => undefined), renewEveryMs);
    renewal.unref();
    try {
      await next();
    } finally {
      clearInterval(renewal);
      const response = exchange.response;
      // A 429 is not stored either: the real limiter answers before the key is looked at, and an injected one
      // must leave the key free for the retry after Retry-After just the same.
      if (!response || response.status >= 500 || response.status === 429) {
        await records.abandon(lock);
      } else {
        // Without x-request-id: each replay is a request of its own, and says so in its own id. The body keeps its
        // bytes, not its parsed JSON (a replay is rare enough to parse them again), so a replayed error's
        // requestId still names the original request.
        const stored = await records
          .complete(lock, { status: response.status, headers: response.headers, body: response.body }, Date.now())
          .catch((error: unknown) => {
            // The resource exists: the client gets its answer rather than a 500 that would make it retry and
            // create again. Only a retry with this key (after the lock runs out) could, and the log says why.
            logger.error({ err: error, requestId: exchange.requestId, operationId: operation.operationId }, 'the answer of a create could not be stored for replay');
            return true;
          });
        if (!stored) logger.warn({ requestId: exchange.requestId, operationId: operation.operationId }, 'the answer of a create was not stored for replay: its key was taken over (the request outlived its lock) or reset');
      }
    }
  };
}
