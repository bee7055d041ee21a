/** What a handler receives and returns. Handlers are named after the contract's operationIds. */
import type { operations } from '../../generated/openapi.js';
import type { Partner } from '../auth/api-keys.ts';
import type { Reply } from '../http/exchange.ts';

export type OperationId = keyof operations;

export interface HandlerContext {
  /** Absent only for operations that take no API key (the signed download). */
  partner?: Partner;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  requestId: string;
  /** Where this server is reached, to build absolute URLs (document downloads). */
  baseUrl: string;
}

export type Handler = (context: HandlerContext) => Reply | Promise<Reply>;

export type Handlers = Partial<Record<OperationId, Handler>>;

export function partnerOf(context: HandlerContext): Partner {
  if (!context.partner) throw new Error('handler needs an authenticated partner');
  return context.partner;
}
