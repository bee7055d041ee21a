/**
 * An answer as the mock sends it: a status, headers and the body's bytes. Every answer, of the API, the admin API,
 * the served documents or a refusal before routing, is one of these, written by `writeAnswer` (write-answer.ts).
 * Error answers are the contract's envelope `{ payload: null, error: { code, message, requestId, details? } }`.
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import type { FieldError } from '../../generated/openapi.js';
import type { AnyErrorCode } from './api-error.ts';

export interface Answer {
  status: number;
  /** The answer's own headers (content type, Retry-After…); finalising adds those every answer carries. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** The JSON value of `body`, kept for the response check and the journal. */
  json?: unknown;
  /** Every header sent, set once when the answer is finalised. */
  finalHeaders?: Record<string, string>;
  /**
   * `Set-Cookie` headers, each written as a header line of its own: the one header whose values cannot be joined
   * into one (RFC 9110, section 5.3). A proxy's, as its upstream sent them.
   */
  setCookies?: readonly string[];
  /** For an answer written as it comes (server-sent events): what writes it, after its head. `body` is then empty. */
  stream?: AnswerStream;
}

/**
 * A body written after the head, piece by piece, for as long as the client stays (server-sent events), within the
 * bounds of the server's streams (event-streams.ts), which also send its heartbeat.
 */
export interface AnswerStream {
  /**
   * Starts writing: `write` sends a piece, and resolves at once while little waits for the client, otherwise once
   * the client has taken it (a client that reads slowly holds the writer back, rather than the mock buffering for
   * it; a writer keeps its pieces small, as what waits is bounded only between them). `closed` is aborted when the
   * client leaves, a bound ends the stream or the mock stops, after which `write` does nothing.
   */
  start(write: (piece: string) => Promise<void>, closed: AbortSignal): void;
}

export interface ErrorBody {
  code: AnyErrorCode;
  message: string;
  requestId: string;
  details?: FieldError[];
}

/** The contract's error envelope, as an answer. */
export function errorAnswer(status: number, error: ErrorBody, headers: Record<string, string> = {}): Answer {
  const json = { payload: null, error: { code: error.code, message: printableMessage(error.message), requestId: error.requestId, ...(error.details ? { details: error.details } : {}) } };
  return { status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json), json };
}

/** A success envelope `{ payload, error: {} }`, as an answer. */
export function payloadAnswer(status: number, payload: unknown, headers: Record<string, string> = {}): Answer {
  const json = { payload, error: {} };
  return { status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json), json };
}

/**
 * The contract's `message` is one line of at most `Error.message` maxLength characters. Messages quote what the caller sent (a parse
 * error's excerpt, a path), which may hold newlines or be long: they are made to fit rather than break the answer.
 */
export function printableMessage(message: string): string {
  const oneLine = message.replace(/[\x00-\x1F\x7F]+/g, ' ');
  return oneLine.length <= maxMessageLength ? oneLine : `${oneLine.slice(0, maxMessageLength - 1)}…`;
}

const maxMessageLength = contractFacts.errorMessageMaxLength;
