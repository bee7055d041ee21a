/**
 * Runs the operation's handler. Handlers are typed per operation, and the mock refuses to start when the contract
 * it serves has an operation without one (see app/server.ts), unless told to answer those from the contract's
 * examples with Prism's engine (`--unhandled-operations examples`): then they come here without a handler. A
 * create's handler answers with a change, which the idempotency step commits with the record of its answer.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { failureAnswer } from './failure.ts';
import type { Exchange, JournalNote } from './exchange.ts';
import type { Step } from './pipeline.ts';
import { isChange, type HandlerContextOf, type HandlerOf } from './handler.ts';
import type { ExampleResponder } from './prism-engine.ts';
import { respond, type Reply } from './reply.ts';

/** The operation's documented header parameters the request carries, by their names in the contract. */
function headerParams(exchange: Exchange): Record<string, string> {
  const found: Record<string, string> = {};
  for (const parameter of exchange.operation?.parameters ?? []) {
    if (parameter.in !== 'header') continue;
    const value = exchange.request.headers[parameter.name.toLowerCase()];
    if (typeof value === 'string') found[parameter.name] = value;
  }
  return found;
}

/** `handlers`: the API's (`Handlers`) or the admin API's, one per operationId of the contract being served. */
/** `baseUrl`: the URL of the links an answer to this request makes (http/own-hosts.ts). */
export function dispatch(options: { handlers: object; examples?: ExampleResponder; baseUrl: (exchange: Exchange) => string; logger: Logger }): Step {
  const handlers = options.handlers as Readonly<Record<string, HandlerOf<unknown> | undefined>>;
  return async (exchange) => {
    const operation = exchange.operation;
    if (!operation) return;
    // The one place where a run-time operationId meets the handlers' types: the request was validated against
    // this operation's schemas, so its parts have the types the handler's context declares.
    const handler = handlers[operation.operationId];
    try {
      if (!handler) {
        if (!options.examples) throw new Error(`no handler for ${operation.operationId}`);
        exchange.response = await options.examples.respond(exchange, operation);
        return;
      }
      const context = {
        partner: exchange.partner,
        path: exchange.validated?.pathParams ?? exchange.pathParams,
        query: exchange.validated?.query ?? {},
        rawQuery: exchange.url.searchParams,
        body: exchange.body.kind === 'json' ? exchange.body.value : undefined,
        // Read only by the few handlers that take a header parameter: not gathered for every request.
        get headers() {
          return headerParams(exchange);
        },
        requestId: exchange.requestId,
        ...(exchange.rawBody ? { rawBody: exchange.rawBody } : {}),
        journal: (note: JournalNote) => {
          exchange.journalNote = note;
        },
        baseUrl: options.baseUrl(exchange),
      } as unknown as HandlerContextOf<unknown>;
      const result: unknown = await handler(context);
      if (isChange(result)) exchange.change = result.commit as NonNullable<typeof exchange.change>;
      else respond(exchange, result as Reply);
    } catch (error) {
      if (error instanceof ApiError) return respond(exchange, error);
      const internal = 'An unexpected error occurred; retry with the same Idempotency-Key.';
      respond(exchange, failureAnswer(error, options.logger, { requestId: exchange.requestId, operationId: operation.operationId, internal }));
    }
  };
}
