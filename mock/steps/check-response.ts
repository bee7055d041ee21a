/**
 * Checks every answer against the contract before it leaves (switchable at run time). A violation is a bug of
 * the mock: it is logged with what broke, kept in the request journal, and the answer becomes a 500 so that no
 * client ever builds on a response the real service would not send.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import type { ResponseValidator } from '../../contract-model/response-validator.ts';

const checked = new WeakSet<object>();

export function checkResponse(options: {
  validatorOf: (operationId: string) => ResponseValidator | undefined;
  enabled: () => boolean;
  logger: Logger;
}): Step {
  return async (exchange, next) => {
    await next();
    const operation = exchange.operation;
    const response = exchange.response;
    // The step stands twice in the pipeline (see server.ts); an answer is checked once.
    if (!options.enabled() || !operation || !response || checked.has(response)) return;
    checked.add(response);
    const validator = options.validatorOf(operation.operationId);
    const headers: Record<string, string> = { ...exchange.commonHeaders, 'x-request-id': exchange.requestId, ...response.headers };
    const problems = validator?.({ status: response.status, headers, body: response.body, json: response.json }) ?? [];
    if (problems.length === 0) return;
    exchange.contractViolations = problems;
    options.logger.error({ requestId: exchange.requestId, operationId: operation.operationId, status: response.status, problems }, 'response breaks the contract');
    exchange.response = undefined;
    respond(exchange, new ApiError(500, 'E_INTERNAL', `The mock's answer broke the contract: ${problems.join('; ')}`));
  };
}
