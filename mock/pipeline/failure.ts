/**
 * What a request that failed is answered, whatever step it failed in. A store that cannot be used now (Redis down,
 * a full disk, a commit whose outcome is unknown) is an outage, not a fault of the mock: `503 E_SERVICE_UNAVAILABLE`
 * with Retry-After, which the contract documents for every operation that reaches the store, and a warning naming
 * the cause. Anything else is the mock's own failure: `500 E_INTERNAL`, logged with its stack.
 */
import type { Logger } from 'pino';
import { ApiError, serviceUnavailable } from '../http/api-error.ts';
import { StoreError } from '../store/store-error.ts';

/** Whether a failure is the store's being unusable for now (a StoreError at run time; at start it refuses the start). */
export function isOutage(error: unknown): error is StoreError {
  return error instanceof StoreError;
}

/** Logs the failure as what it is, and returns the answer for it; `internal` is the 500's message. */
export function failureAnswer(error: unknown, logger: Pick<Logger, 'error' | 'warn'>, context: { requestId: string; operationId?: string; internal: string }): ApiError {
  const { internal, ...where } = context;
  if (isOutage(error)) {
    logger.warn({ ...where, reason: error.message }, 'request answered 503: the store is unavailable');
    return serviceUnavailable();
  }
  logger.error({ err: error, ...where }, 'request failed');
  return new ApiError(500, 'E_INTERNAL', internal);
}
