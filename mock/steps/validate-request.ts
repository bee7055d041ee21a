/** Every request is checked against the contract before any handler runs: violations are 400 E_VALIDATION_FAILED. */
import { validationFailed } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import type { RequestValidator } from '../validation/request-validator.ts';

export function validateRequest(validatorOf: (operationId: string) => RequestValidator | undefined): Step {
  return (exchange, next) => {
    const operation = exchange.operation;
    const validator = operation && validatorOf(operation.operationId);
    if (!validator) return next();
    const verdict = validator({
      pathParams: exchange.pathParams,
      query: exchange.url.searchParams,
      headers: exchange.request.headers,
      body: exchange.body,
    });
    if (!verdict.ok) {
      respond(exchange, validationFailed(verdict.details));
      return;
    }
    exchange.validated = verdict.request;
    return next();
  };
}
