/**
 * What a handler receives and returns, typed per operation from the generated contract types: its path and query
 * parameters, its body and its success payload are the contract's. `Handlers` maps every operationId of the
 * contract to its handler, so an operation added to the contract without one fails to compile.
 */
import type { operations } from '../../generated/openapi.js';
import type { OperationId, PathParams, Payload, QueryParams, RequestBody, SuccessEnvelope, SuccessStatus } from '../../contract-model/operation-types.ts';
import type { Partner } from '../auth/api-keys.ts';

export type { OperationId } from '../../contract-model/operation-types.ts';

export interface HandlerContext<K extends OperationId> {
  /** Absent only for operations that take no API key (the signed download). */
  partner?: Partner;
  /** Validated against the contract and coerced to its types. */
  path: PathParams<operations[K]>;
  query: Partial<QueryParams<operations[K]>>;
  body: RequestBody<operations[K]>;
  requestId: string;
  /** Where this server is reached, to build absolute URLs (document downloads). */
  baseUrl: string;
}

type StatusOf<K extends OperationId> = Extract<keyof operations[K]['responses'], SuccessStatus>;

export interface JsonReply<K extends OperationId> {
  status: StatusOf<K>;
  payload: Payload<operations[K]>;
  headers?: Record<string, string>;
}

export interface FileReply {
  status: 200;
  file: Uint8Array;
  contentType: string;
  headers?: Record<string, string>;
}

/** An operation whose success is not JSON (the PDF download) answers with a file. */
export type Reply<K extends OperationId> = [SuccessEnvelope<operations[K]>] extends [never] ? FileReply : JsonReply<K>;

export type Handler<K extends OperationId> = (context: HandlerContext<K>) => Reply<K> | Promise<Reply<K>>;

export type Handlers = { [K in OperationId]: Handler<K> };

export function partnerOf(context: { partner?: Partner }): Partner {
  if (!context.partner) throw new Error('handler needs an authenticated partner');
  return context.partner;
}
