/**
 * Serving one request through a pipeline, for the API, the admin API and the served documents alike: the exchange
 * is made, the steps run, and the answer, whatever decided it (a step, a handler, a failure caught here), is sent
 * by `sendAnswer`, whatever transport carries it (Node's server, a Fetch API `Request` in process), the one function that finalises an answer (its headers and its check against the contract),
 * writes it and records it (journal and log line) as it was sent; a failure is answered as failure.ts says (an
 * outage of the store is a 503). A request whose client left before its body was whole
 * (`RequestAborted`), or that was answered on its socket meanwhile (broken chunk framing, too slow: see
 * http/client-error.ts), gets nothing more, but is still recorded.
 */
import type { Logger } from 'pino';
import { ApiError } from '../http/api-error.ts';
import { RequestAborted } from '../http/cut-short.ts';
import type { IncomingRequest } from '../http/incoming-request.ts';
import type { RequestTarget } from '../http/request-target.ts';
import type { AnswerWriter } from '../http/sendable-answer.ts';
import { newExchange, type Exchange } from './exchange.ts';
import { failureAnswer } from './failure.ts';
import { respond } from './reply.ts';

/** How the requests of one pipeline are served and answered. */
export interface Channel {
  run(exchange: Exchange): Promise<void>;
  /** Completes the answer's headers and checks it against the contract served; once, however often called. */
  finalise(exchange: Exchange): void;
  /** Journals and logs the exchange, answered or not (`aborted`: its client left before its request was whole). */
  record(exchange: Exchange, aborted?: RequestAborted): void;
}

/**
 * Serves a request through a channel and hands its answer to `writer`: the transport's, which the pipeline does not
 * know (Node's server, or the fetch adapter).
 */
export async function serveRequest(channel: Channel, request: IncomingRequest, writer: AnswerWriter, url: RequestTarget, logger: Pick<Logger, 'error' | 'warn' | 'debug'>): Promise<void> {
  const exchange = newExchange(request, url);
  request.attach(exchange);
  try {
    await channel.run(exchange);
  } catch (error) {
    if (error instanceof RequestAborted) {
      // Not a failure of the mock: the journal and log line say so (499, or what was answered on the socket).
      logger.debug({ requestId: exchange.requestId, reason: error.reason, ...request.refusal }, 'request ended before its body was read: nothing more to answer');
      channel.record(exchange, error);
      return;
    }
    exchange.response = undefined;
    respond(exchange, failureAnswer(error, logger, { requestId: exchange.requestId, internal: 'An unexpected error occurred.' }));
  }
  if (request.refusal) return channel.record(exchange);
  sendAnswer(channel, exchange, writer, logger);
}

/**
 * Finalises, writes and records the exchange's answer (a 500 when nothing decided one). Recorded once written, as
 * `writeAnswer` sent it (its header values escaped, or the 500 that replaced an answer it could not write): the
 * journal keeps what the client got. Finalising that fails (a bug of the check, not of the answer) is answered as
 * any failure is, under the request's own id, and journaled so. A stream past the server's bound on open streams
 * (`streams`) is refused here, whatever route answered with it, before it is checked and written: from here to the
 * write nothing waits, so no other stream can take the place meanwhile. `writer` is the transport's: it writes the
 * answer on Node's connection, or makes it a `Response` (http/sendable-answer.ts), the same finalised answer either way.
 */
export function sendAnswer(channel: Pick<Channel, 'finalise' | 'record'>, exchange: Exchange, writer: AnswerWriter, logger: Pick<Logger, 'error' | 'warn'>): void {
  if (!exchange.response) respond(exchange, new ApiError(500, 'E_INTERNAL', 'No answer was produced.'));
  const refusal = exchange.response?.stream ? writer.streamRefusal({ requestId: exchange.requestId, path: exchange.url.pathname }) : undefined;
  if (refusal) respond(exchange, refusal);
  try {
    channel.finalise(exchange);
  } catch (error) {
    respond(exchange, failureAnswer(error, logger, { requestId: exchange.requestId, internal: 'An unexpected error occurred while the answer was checked.' }));
    try {
      channel.finalise(exchange);
    } catch {
      finaliseUnchecked(exchange);
    }
  }
  try {
    const sent = writer.write(exchange.response as NonNullable<Exchange['response']>, exchange.method);
    if (sent.unwritable !== undefined) logger.error({ requestId: exchange.requestId, status: exchange.response?.status, problem: sent.unwritable }, 'the answer could not be written: answered 500 instead');
    exchange.response = sent.answer;
  } finally {
    channel.record(exchange);
  }
}

/** The headers every answer carries, when the check fails even on the 500 that reports it failing. */
function finaliseUnchecked(exchange: Exchange): void {
  const answer = exchange.response as NonNullable<Exchange['response']>;
  answer.finalHeaders = { ...exchange.commonHeaders, 'x-request-id': exchange.requestId, ...answer.headers };
}
