/**
 * Every request is checked against the contract before any handler runs: a body that is not JSON is 400
 * E_MALFORMED_JSON, violations are 400 E_VALIDATION_FAILED. A proxy told to forward what the contract refuses
 * (`--upstream-requests forward`) notes the violations instead (`exchange.requestViolations`) and goes on, so that
 * what the upstream does with such a request can be seen.
 */
import { ApiError, validationFailed } from '../http/api-error.ts';
import type { Exchange } from './exchange.ts';
import type { Step } from './pipeline.ts';
import { respond } from './reply.ts';
import type { RequestValidator } from './request-validator.ts';

export function validateRequest(validatorOf: (operationId: string) => RequestValidator | undefined, options: { onViolation: 'refuse' | 'note' | ((exchange: Exchange) => 'refuse' | 'note') } = { onViolation: 'refuse' }): Step {
  const onViolation = (exchange: Exchange) => (typeof options.onViolation === 'function' ? options.onViolation(exchange) : options.onViolation);
  return (exchange, next) => {
    if (exchange.body.kind === 'malformed') {
      if (onViolation(exchange) === 'note') {
        exchange.requestViolations = [`body: not valid JSON (${exchange.body.problem})`];
        return next();
      }
      return respond(exchange, new ApiError(400, 'E_MALFORMED_JSON', `The body is not valid JSON: ${exchange.body.problem}.`));
    }
    const operation = exchange.operation;
    const validator = operation && validatorOf(operation.operationId);
    if (!validator) return next();
    const verdict = validator({
      pathParams: exchange.pathParams,
      query: exchange.url.searchParams,
      rawQuery: exchange.url.rawQuery,
      headers: exchange.request.headers,
      body: exchange.body.kind === 'json' ? exchange.body.value : undefined,
    });
    if (!verdict.ok) {
      if (onViolation(exchange) === 'note') {
        exchange.requestViolations = verdict.details.map((detail) => `${detail.in} ${detail.field}: ${detail.message}`);
        return next();
      }
      respond(exchange, validationFailed(verdict.details, verdict.more));
      return;
    }
    exchange.validated = verdict.request;
    return next();
  };
}
