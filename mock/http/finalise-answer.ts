/**
 * Finalises an answer, once, as soon as it is decided: completes its headers (the rate-limit headers every answer
 * carries, the request id, Idempotent-Replayed, and a deprecated operation's Deprecation and Sunset) and checks it against the contract (switchable at run time). A
 * violation is a bug of the mock: it is logged with what broke, kept in the request journal, and the answer becomes
 * a 500, so that no client ever builds on a response the real service would not send, and idempotency never stores
 * it (a 5xx leaves the key free for the retry).
 */
import type { Logger } from 'pino';
import { deprecationHeaders } from '../../contract-model/deprecation.ts';
import type { ResponseValidator } from '../../contract-model/response-validator.ts';
import { ApiError } from './api-error.ts';
import { respond, type Exchange, type SerializedResponse } from './exchange.ts';

export function createAnswerFinaliser(options: {
  validatorOf: (operationId: string) => ResponseValidator | undefined;
  /** Whether to check this exchange's answer (a partner may have switched checks off for its own requests). */
  enabled: (exchange: Exchange) => boolean;
  logger: Logger;
}): (exchange: Exchange) => void {
  const complete = (exchange: Exchange, response: SerializedResponse) => {
    response.finalHeaders = { ...exchange.commonHeaders, 'x-request-id': exchange.requestId, ...response.headers };
    if (exchange.idempotentReplayed) response.finalHeaders['idempotent-replayed'] = exchange.idempotentReplayed;
    const deprecation = exchange.operation?.deprecation;
    if (deprecation !== undefined) Object.assign(response.finalHeaders, deprecationHeaders(deprecation));
  };
  return (exchange) => {
    const response = exchange.response as SerializedResponse;
    complete(exchange, response);
    const operation = exchange.operation;
    if (!operation || !options.enabled(exchange)) return;
    const validator = options.validatorOf(operation.operationId);
    const problems = validator?.({ status: response.status, headers: response.finalHeaders as Record<string, string>, body: response.body, json: response.json }) ?? [];
    if (problems.length === 0) return;
    exchange.contractViolations = problems;
    options.logger.error({ requestId: exchange.requestId, operationId: operation.operationId, status: response.status, problems }, 'response breaks the contract');
    exchange.response = undefined;
    exchange.idempotentReplayed = undefined;
    respond(exchange, new ApiError(500, 'E_INTERNAL', `The mock's answer broke the contract: ${problems.join('; ')}`));
    complete(exchange, exchange.response as unknown as SerializedResponse);
  };
}
