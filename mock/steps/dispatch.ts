/**
 * Runs the operation's handler. An operation the mock has no handler for is answered by Prism's engine from the
 * contract's examples, so a new operation in the contract is mocked at once.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import type { Step } from '../http/pipeline.ts';
import type { Handlers } from '../resources/handler.ts';
import type { ExampleResponder } from '../validation/prism-engine.ts';

export function dispatch(options: { handlers: Handlers; examples: ExampleResponder; baseUrl: () => string; logger: Logger }): Step {
  return async (exchange) => {
    const operation = exchange.operation;
    if (!operation) return;
    const handler = options.handlers[operation.operationId as keyof Handlers];
    try {
      if (!handler) {
        exchange.response = await options.examples.respond(exchange, operation);
        return;
      }
      const reply = await handler({
        partner: exchange.partner,
        pathParams: exchange.validated?.pathParams ?? exchange.pathParams,
        query: exchange.validated?.query ?? {},
        body: exchange.body,
        requestId: exchange.requestId,
        baseUrl: options.baseUrl(),
      });
      respond(exchange, reply);
    } catch (error) {
      if (error instanceof ApiError) {
        respond(exchange, error);
        return;
      }
      options.logger.error({ err: error, requestId: exchange.requestId, operationId: operation.operationId }, 'handler failed');
      respond(exchange, new ApiError(500, 'E_INTERNAL', 'An unexpected error occurred; retry with the same Idempotency-Key.'));
    }
  };
}
