/** Everything known about one request while it walks the pipeline, and the response once one is decided. */
import type { IncomingMessage } from 'node:http';
import type { ContractOperation } from '../../contract-model/operations.ts';
import type { ValidatedRequest } from '../validation/request-validator.ts';
import type { Partner } from '../auth/api-keys.ts';
import { ApiError } from './api-error.ts';
import type { RequestTarget } from './request-target.ts';

export interface SerializedResponse {
  status: number;
  /** The answer's own headers (content type, Retry-After…); the pipeline adds the ones every answer carries. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** The JSON value of `body`, kept for response validation and the journal. */
  json?: unknown;
  /** Every header sent, set once when the pipeline finalises the answer (http/finalise-answer.ts). */
  finalHeaders?: Record<string, string>;
}

export interface Exchange {
  readonly request: IncomingMessage;
  readonly method: string;
  readonly url: RequestTarget;
  readonly startedAt: bigint;
  requestId: string;
  operation?: ContractOperation;
  pathParams: Record<string, string>;
  partner?: Partner;
  rawBody?: Buffer;
  /** The parsed body; `undefined` when there is none. */
  body?: unknown;
  bodyMalformed?: string;
  validated?: ValidatedRequest;
  /** Headers every answer carries, whatever decided it (rate-limit headers). */
  commonHeaders: Record<string, string>;
  response?: SerializedResponse;
  /** Set when the answer is the replay of a stored one. */
  replayed?: boolean;
  /** `Idempotent-Replayed`, once the idempotency step took the key (`false`) or replays (`true`). */
  idempotentReplayed?: 'true' | 'false';
  contractViolations?: string[];
}

export type Reply =
  | { status: number; payload: unknown; headers?: Record<string, string> }
  | { status: number; file: Uint8Array; contentType: string; headers?: Record<string, string> };

export function respond(exchange: Exchange, reply: Reply | ApiError): void {
  if (reply instanceof ApiError) {
    const error = {
      code: reply.code,
      message: printableMessage(reply.message),
      requestId: exchange.requestId,
      ...(reply.details ? { details: reply.details } : {}),
    };
    const json = { payload: null, error };
    exchange.response = { status: reply.status, headers: { ...reply.headers, 'content-type': 'application/json' }, body: JSON.stringify(json), json };
    return;
  }
  if ('file' in reply) {
    // JSON served as it is (a document that is not an envelope) is still checked as JSON against the contract.
    const json = /^application\/json\b/.test(reply.contentType) ? (JSON.parse(Buffer.from(reply.file).toString('utf8')) as unknown) : undefined;
    exchange.response = { status: reply.status, headers: { ...reply.headers, 'content-type': reply.contentType }, body: reply.file, ...(json === undefined ? {} : { json }) };
    return;
  }
  const json = { payload: reply.payload, error: {} };
  exchange.response = { status: reply.status, headers: { ...reply.headers, 'content-type': 'application/json' }, body: JSON.stringify(json), json };
}

/**
 * The contract's `message` is one line of at most 1000 characters. Messages quote what the caller sent (a parse
 * error's excerpt, a path), which may hold newlines or be long: they are made to fit rather than break the answer.
 */
export function printableMessage(message: string): string {
  const oneLine = message.replace(/[\x00-\x1F\x7F]+/g, ' ');
  return oneLine.length <= 1000 ? oneLine : `${oneLine.slice(0, 999)}…`;
}
