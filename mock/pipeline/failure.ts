/**
 * What a request that failed is answered, whatever step it failed in. A store that cannot be used now (Redis down,
 * a full disk, a commit whose outcome is unknown) is an outage, not a fault of the mock: `503 E_SERVICE_UNAVAILABLE`
 * with Retry-After, which the contract documents for every operation that reaches the store, and a warning naming
 * the cause. A damaged store (StoreDamaged) is an outage that does not pass by itself: its 503 says what makes the
 * mock serve again, and its log line is an error. Retry-After stays on it, as the contract requires on every 503.
 * Anything else is the mock's own failure: `500 E_INTERNAL`, logged with its stack.
 */
import type { Logger } from 'pino';
import { ApiError, serviceUnavailable } from '../http/api-error.ts';
import { StoreDamaged, StoreError } from '../store/store-error.ts';

/** Whether a failure is the store's being unusable for now (a StoreError at run time; at start it refuses the start). */
export function isOutage(error: unknown): error is StoreError {
  return error instanceof StoreError;
}

/** Logs the failure as what it is, and returns the answer for it; `internal` is the 500's message. */
export function failureAnswer(error: unknown, logger: Pick<Logger, 'error' | 'warn'>, context: { requestId: string; operationId?: string; internal: string }): ApiError {
  const { internal, ...where } = context;
  if (error instanceof StoreDamaged) {
    logger.error({ ...where, reason: error.message }, 'request answered 503: the store is damaged');
    return outageAnswer(error);
  }
  if (isOutage(error)) {
    logger.warn({ ...where, reason: error.message }, 'request answered 503: the store is unavailable');
    return outageAnswer(error);
  }
  logger.error({ err: error, ...where }, 'request failed');
  return new ApiError(500, 'E_INTERNAL', internal);
}

/** The 503 of a store outage: a damaged store's says that retrying alone does not help, and what does. */
export function outageAnswer(error: StoreError): ApiError {
  if (!(error instanceof StoreDamaged)) return serviceUnavailable();
  return serviceUnavailable(
    "The mock's store is damaged: its data cannot be trusted, and retrying does not help until it is made again by a full reset (POST /_mock/reset without a partner's key). GET /_mock/health names the cause.",
  );
}
