/**
 * What a handler receives and returns, typed per operation from the generated contract types: its path and query
 * parameters, its body and its success payload are the contract's. A handler map has one entry per operationId of
 * its contract, so an operation added to the contract without one fails to compile. The API's handlers and the
 * admin API's are both built this way, each from its own contract.
 *
 * A create (an operation that takes an `Idempotency-Key`) does not store anything itself: it answers with a
 * `Change`, a transaction that stores the change and makes the reply, which the idempotency step commits together
 * with the record of that reply. The types require it: a create's handler that returns a plain reply does not
 * compile.
 */
import type { operations as AdminOperations } from '../../generated/mock-admin/openapi.js';
import type { operations } from '../../generated/openapi.js';
import type { HeaderParams, OperationId, PathParams, Payload, QueryParams, RequestBody, SuccessEnvelope, SuccessStatus } from '../../contract-model/operation-types.ts';
import type { Partner } from '../auth/api-keys.ts';
import type { AnswerStream } from '../http/answer.ts';
import type { TxBody } from '../store/store.ts';
import type { JournalNote } from './exchange.ts';

export type { OperationId } from '../../contract-model/operation-types.ts';

export interface HandlerContextOf<Op> {
  /** Absent for operations that take no API key (the signed download), and where the key is optional. */
  partner?: Partner;
  /** Validated against the contract and coerced to its types. */
  path: PathParams<Op>;
  query: Partial<QueryParams<Op>>;
  /**
   * The query string as sent, before coercion: for an operation whose query is signed (`x-signed-query`), where
   * `0900` must not pass for `900`, nor a repeated parameter for a single one.
   */
  rawQuery: URLSearchParams;
  body: RequestBody<Op>;
  /** The header parameters the operation documents (other than those a step answers for), by their names there. */
  headers: Partial<HeaderParams<Op>>;
  requestId: string;
  /** The body's bytes as sent, when there was one: what a signature is over (the webhook relay). */
  rawBody?: Uint8Array;
  /** Adds to the request's journal entry (see `JournalNote`). */
  journal(note: JournalNote): void;
  /** Where this server is reached, to build absolute URLs (document downloads). */
  baseUrl: string;
}

/**
 * The statuses a handler answers with its payload: the successes, and any other whose body is a payload rather than
 * an error (the health's 503, which is the health itself, saying what failed).
 */
type StatusOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? S : R[S] extends { content: { 'application/json': { payload: infer P } } } ? ([P] extends [null] ? never : S) : never }[keyof R]
  : never;

export interface JsonReply<Op> {
  status: StatusOf<Op>;
  payload: Payload<Op>;
  headers?: Record<string, string>;
}

/** Bytes sent as they are: a PDF, an HTML page, a document that is not an envelope. */
export interface FileReply {
  status: 200;
  file: Uint8Array;
  contentType: string;
  headers?: Record<string, string>;
}

/** Server-sent events, written as they come (`text/event-stream`). */
export interface StreamReply {
  status: 200;
  stream: AnswerStream;
  headers?: Record<string, string>;
}

/**
 * An operation whose success is the JSON envelope answers with its payload; one whose success is anything else (the
 * PDF download, the docs, a document served as it is) answers with the bytes, or a stream of events.
 */
export type ReplyOf<Op> = [SuccessEnvelope<Op>] extends [never] ? FileReply | StreamReply : [SuccessEnvelope<Op>] extends [{ payload: unknown }] ? JsonReply<Op> : FileReply | StreamReply;

/** A reply made by the transaction that stores what it reports (see above). */
export interface Change<R> {
  readonly kind: 'change';
  readonly commit: TxBody<R>;
}

export function change<R>(commit: TxBody<R>): Change<R> {
  return { kind: 'change', commit };
}

export function isChange(value: unknown): value is Change<unknown> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'change';
}

/** Whether the operation takes an `Idempotency-Key`: a create. */
type IsCreate<Op> = Op extends { parameters: { header: { 'Idempotency-Key': unknown } } } ? true : false;

export type HandlerOf<Op> = (
  context: HandlerContextOf<Op>,
) => IsCreate<Op> extends true ? Change<ReplyOf<Op>> | Promise<Change<ReplyOf<Op>>> : ReplyOf<Op> | Promise<ReplyOf<Op>>;

/** One handler per operation of `Ops` (a generated `operations` interface). */
export type HandlersOf<Ops> = { [K in keyof Ops]: HandlerOf<Ops[K]> };

export type HandlerContext<K extends OperationId> = HandlerContextOf<operations[K]>;
export type Reply<K extends OperationId> = ReplyOf<operations[K]>;
export type Handler<K extends OperationId> = HandlerOf<operations[K]>;
export type Handlers = HandlersOf<Pick<operations, OperationId>>;
/** The admin API's handlers (mock/admin/openapi/), which the features it serves contribute to. */
export type AdminHandlers = HandlersOf<AdminOperations>;

export function partnerOf(context: { partner?: Partner }): Partner {
  if (!context.partner) throw new Error('handler needs an authenticated partner');
  return context.partner;
}
