/**
 * Runs one request through a pipeline and writes its answer: how the API and the admin routes alike turn a request
 * into an exchange, make sure it gets an answer (a failure inside the pipeline is still the contract's envelope,
 * with the request id and rate-limit headers already known), finalise it and send it. A request whose client left
 * before its body was whole (`RequestAborted`), or that was answered on its socket meanwhile (broken chunk framing,
 * too slow: see client-error.ts), gets nothing more.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ApiError } from './api-error.ts';
import { noteExchange, refusalOf, RequestAborted } from './client-error.ts';
import { respond, type Exchange } from './exchange.ts';
import type { Pipeline } from './pipeline.ts';
import type { RequestTarget } from './request-target.ts';

export async function serveExchange(pipeline: Pipeline, request: IncomingMessage, response: ServerResponse, url: RequestTarget, logger: Pick<Logger, 'error' | 'debug'>): Promise<void> {
  const exchange: Exchange = { request, method: request.method ?? 'GET', url, startedAt: process.hrtime.bigint(), requestId: '', pathParams: {}, commonHeaders: {} };
  noteExchange(exchange);
  try {
    await pipeline(exchange);
  } catch (error) {
    if (error instanceof RequestAborted) {
      // Not a failure of the mock: the API's journal and log line say so (499, or what was answered on the socket).
      logger.debug({ requestId: exchange.requestId, reason: error.reason, ...refusalOf(request) }, 'request ended before its body was read: nothing more to answer');
      return;
    }
    logger.error({ err: error, requestId: exchange.requestId }, 'request failed in the pipeline');
    exchange.response = undefined;
    respond(exchange, new ApiError(500, 'E_INTERNAL', 'An unexpected error occurred.'));
  }
  if (refusalOf(request)) return;
  if (!exchange.response) respond(exchange, new ApiError(500, 'E_INTERNAL', 'No answer was produced.'));
  pipeline.finalise(exchange);
  const answer = exchange.response as NonNullable<Exchange['response']>;
  // A known length lets Node send the head and the body in one write, without chunked framing; a HEAD answer
  // carries the length its GET would have.
  response.writeHead(answer.status, { ...answer.finalHeaders, 'content-length': String(Buffer.byteLength(answer.body)) });
  response.end(exchange.method === 'HEAD' ? undefined : answer.body);
}
