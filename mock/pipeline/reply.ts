/**
 * What a step or a handler answers with, before it is an answer on the wire: a payload to wrap in the envelope,
 * bytes sent as they are, or an ApiError. `respond` decides the exchange's answer; finalising and writing it is
 * `sendAnswer`'s (send-answer.ts), for every answer alike.
 */
import { ApiError } from '../http/api-error.ts';
import { errorAnswer, payloadAnswer, type Answer } from '../http/answer.ts';
import type { Exchange, Reply } from './exchange.ts';

export type { Reply } from './exchange.ts';

/** The answer a reply makes, for this exchange (an error names its request id). */
export function answerOf(exchange: Pick<Exchange, 'requestId'>, reply: Reply | ApiError): Answer {
  if (reply instanceof ApiError) return errorAnswer(reply.status, { code: reply.code, message: reply.message, requestId: exchange.requestId, ...(reply.details ? { details: reply.details } : {}) }, reply.headers);
  if ('stream' in reply) return { status: reply.status, headers: { ...reply.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-store' }, body: '', stream: reply.stream };
  if ('file' in reply) {
    // JSON served as it is (a document that is not an envelope) is still checked as JSON against the contract.
    const json = /^application\/json\b/.test(reply.contentType) ? (JSON.parse(Buffer.from(reply.file).toString('utf8')) as unknown) : undefined;
    return { status: reply.status, headers: { ...reply.headers, 'content-type': reply.contentType }, body: reply.file, ...(json === undefined ? {} : { json }) };
  }
  return payloadAnswer(reply.status, reply.payload, reply.headers);
}

/** Decides the exchange's answer. */
export function respond(exchange: Exchange, reply: Reply | ApiError): void {
  exchange.response = answerOf(exchange, reply);
}
