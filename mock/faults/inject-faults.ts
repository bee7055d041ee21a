/** Applies a fault armed through `/_mock/faults` to this request (see admin/faults.ts). */
import { ApiError } from '../http/api-error.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { respond } from '../pipeline/reply.ts';
import type { FaultRegistry } from './faults.ts';

const answers = {
  429: () => new ApiError(429, 'E_RATE_LIMITED', 'Too many requests for this key; retry after Retry-After seconds.', undefined, { 'retry-after': '1' }),
  500: () => new ApiError(500, 'E_INTERNAL', 'An unexpected error occurred; retry with the same Idempotency-Key.'),
  503: () => new ApiError(503, 'E_SERVICE_UNAVAILABLE', 'The service is briefly unavailable; retry after Retry-After.', undefined, { 'retry-after': '1' }),
} as const;

export function injectFaults(faults: FaultRegistry): Step {
  return async (exchange, next) => {
    const fault = exchange.operation && faults.take(exchange.operation.operationId, exchange.partner?.id);
    if (!fault) return next();
    if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault.status) {
      respond(exchange, answers[fault.status]());
      return;
    }
    return next();
  };
}
