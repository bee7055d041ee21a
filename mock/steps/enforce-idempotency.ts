/**
 * Idempotency of the creates, as the contract publishes it: same key and body → the stored answer again with
 * `Idempotent-Replayed: true` (nothing runs, nothing is sent); same key, other body → 409 REUSED; same key while
 * the first is still running → 409 IN_PROGRESS with Retry-After. 4xx outcomes are stored, 429 and 5xx are not.
 */
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import { fingerprintOf } from '../idempotency/fingerprint.ts';
import type { IdempotencyStore } from '../idempotency/idempotency-store.ts';

const validKey = /^[!-~]{1,255}$/;

export function enforceIdempotency(store: IdempotencyStore): Step {
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
    const scope = `${exchange.partner?.id ?? ''}\u0000${operation.operationId}\u0000${key}`;
    const fingerprint = fingerprintOf(exchange.body, exchange.rawBody);
    const record = store.get(scope);
    if (record) {
      if (record.fingerprint !== fingerprint) {
        respond(exchange, new ApiError(409, 'E_IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different body; use a fresh key for a new request.'));
      } else if (record.state === 'in-flight') {
        respond(exchange, new ApiError(409, 'E_IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry after Retry-After.', undefined, { 'retry-after': '1' }));
      } else {
        exchange.replayed = true;
        const stored = record.response;
        exchange.response = { ...stored, headers: { ...stored.headers, 'idempotent-replayed': 'true' }, json: typeof stored.body === 'string' ? JSON.parse(stored.body) : undefined };
      }
      return;
    }
    store.begin(scope, fingerprint);
    try {
      await next();
    } finally {
      const response = exchange.response;
      // A 429 is not stored either: the real limiter answers before the key is looked at, and an injected one
      // must leave the key free for the retry after Retry-After just the same.
      if (!response || response.status >= 500 || response.status === 429) {
        store.abandon(scope);
      } else {
        response.headers['idempotent-replayed'] = 'false';
        // The stored answer keeps its own request id: the replayed body's error.requestId must match the header.
        // It keeps its bytes, not its parsed JSON: up to the record cap of object trees would be for the garbage
        // collector to walk on every major collection, and a replay is rare enough to parse the bytes again.
        store.complete(scope, { status: response.status, headers: { ...response.headers, 'x-request-id': exchange.requestId }, body: response.body });
      }
    }
  };
}
