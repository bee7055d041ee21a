/**
 * Finalises an answer, once: completes its headers (those every answer carries: the rate-limit headers, the request
 * id, Idempotent-Replayed, and a deprecated operation's Deprecation and Sunset) and checks it against the contract
 * (switchable at run time). A violation is a bug of the mock: it is logged with what broke, kept in the request
 * journal, and the answer becomes a 500, so that no client ever builds on a response the real service would not
 * send, and idempotency never stores it (a 5xx leaves the key free for the retry).
 *
 * An upstream's answer (the mock as a proxy, `--upstream`) is the exception: it is what the real server does, so it
 * is passed through as it came, its violations logged, journaled and named in `x-mock-contract-violations`; its own
 * headers are kept, and none is added but the request id when it has none. The proxy's own 502 and 504, when the
 * upstream fails, are not the contract's to judge.
 */
import type { Logger } from 'pino';
import { deprecationHeaders } from '../../contract-model/deprecation.ts';
import type { ResponseValidator } from '../../contract-model/response-validator.ts';
import { ApiError } from '../http/api-error.ts';
import type { Answer } from '../http/answer.ts';
import { headerTextWithin } from '../http/header-value.ts';
import { answeredByUpstream, upstreamFailed, type Exchange } from './exchange.ts';
import { respond } from './reply.ts';

export const violationsHeader = 'x-mock-contract-violations';
/** On an answer the mock made because the upstream could not (`--upstream-fallback`): why. */
export const fallbackHeader = 'x-mock-fallback';
/** On an upstream's answer to a request the proxy forwarded although it broke the contract: how it did. */
export const requestViolationsHeader = 'x-mock-request-violations';
/** The header names the violations, cut to this length as written (escaped): the journal has them all. */
const maxViolationsHeaderLength = 4000;

/**
 * Violations as a header names them: how many, then each, on one line. They quote the contract, the request and the
 * upstream (field names, values), in any script: writeAnswer escapes what a header may not carry.
 */
function named(violations: readonly string[]): string {
  const count = `${violations.length}: `;
  return `${count}${headerTextWithin(violations.join(' | ').replace(/[\x00-\x1F\x7F]/g, ' '), maxViolationsHeaderLength - count.length)}`;
}

export function createAnswerFinaliser(options: {
  validatorOf: (operationId: string) => ResponseValidator | undefined;
  /** Whether to check this exchange's answer (a partner may have switched checks off for its own requests). */
  enabled: (exchange: Exchange) => boolean;
  logger: Pick<Logger, 'error'>;
}): (exchange: Exchange) => void {
  const complete = (exchange: Exchange, answer: Answer) => {
    if (answeredByUpstream(exchange)) {
      answer.finalHeaders = { 'x-request-id': exchange.requestId, ...answer.headers };
      if (exchange.requestViolations) answer.finalHeaders[requestViolationsHeader] = named(exchange.requestViolations);
      return;
    }
    answer.finalHeaders = { ...exchange.commonHeaders, 'x-request-id': exchange.requestId, ...answer.headers };
    if (exchange.idempotentReplayed) answer.finalHeaders['idempotent-replayed'] = exchange.idempotentReplayed;
    const deprecation = exchange.operation?.deprecation;
    if (deprecation !== undefined) Object.assign(answer.finalHeaders, deprecationHeaders(deprecation));
  };
  return (exchange) => {
    const answer = exchange.response;
    if (!answer || answer.finalHeaders) return;
    complete(exchange, answer);
    // Set by complete (TypeScript keeps the narrowing from before the call).
    const finalHeaders = answer.finalHeaders as unknown as Record<string, string>;
    if (exchange.upstream?.fallback) finalHeaders[fallbackHeader] = exchange.upstream.outcome === 'answered' ? `upstream answered ${exchange.upstream.status ?? ''}`.trim() : `upstream ${exchange.upstream.outcome}`;
    const operation = exchange.operation;
    if (!operation || !options.enabled(exchange) || upstreamFailed(exchange)) return;
    const problems = options.validatorOf(operation.operationId)?.({ status: answer.status, headers: finalHeaders, body: answer.body, json: answer.json }) ?? [];
    if (problems.length === 0) return;
    exchange.contractViolations = problems;
    if (answeredByUpstream(exchange) && exchange.upstream) {
      options.logger.error({ requestId: exchange.requestId, operationId: operation.operationId, status: answer.status, problems, upstream: exchange.upstream.url }, "the upstream's response breaks the contract");
      finalHeaders[violationsHeader] = named(problems);
      return;
    }
    options.logger.error({ requestId: exchange.requestId, operationId: operation.operationId, status: answer.status, problems }, 'response breaks the contract');
    exchange.idempotentReplayed = undefined;
    respond(exchange, new ApiError(500, 'E_INTERNAL', `The mock's answer broke the contract: ${problems.join('; ')}`));
    complete(exchange, exchange.response as Answer);
  };
}
