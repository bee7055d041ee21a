/**
 * An exchange as a traffic document holds it (the admin contract's `TrafficExchange`): what matters to the contract
 * and nothing more. The request's method, path and query; of its headers, those the API contract documents as
 * parameters, and `content-type`; of the answer's, those it documents for responses. A header that carries a
 * credential (`authorization`, a cookie, a token) is never one of them. Bodies are kept whole up to the API's body
 * limit (as served), or as the journal keeps them (exported). An exchange is masked as a whole when it is encoded
 * (traffic-document.ts), by the rule every text the mock shows goes through.
 */
import type { ContractOperation } from '../../contract-model/operations.ts';
import type { components } from '../../generated/mock-admin/openapi.js';
import { capturedHeaders, isTextual, utf8 } from './captured-message.ts';

export type TrafficExchange = components['schemas']['TrafficExchange'];
export type TrafficBody = components['schemas']['TrafficBody'];
export type TrafficSource = components['schemas']['TrafficSource'];

/** The header names, lower-cased, that a traffic document keeps of a request and of an answer. */
export interface TrafficHeaderNames {
  request: ReadonlySet<string>;
  answer: ReadonlySet<string>;
}

/** Headers whose values the contract reads elsewhere (the key) or that only carry secrets: never kept. */
const credentialHeaders = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization']);

/** The headers the contract documents: as parameters of its operations (requests), in their responses (answers). */
export function trafficHeaderNames(operations: readonly ContractOperation[]): TrafficHeaderNames {
  const request = new Set(['content-type']);
  const answer = new Set(['content-type']);
  for (const operation of operations) {
    for (const parameter of operation.parameters) if (parameter.in === 'header') request.add(parameter.name.toLowerCase());
    for (const response of operation.responses.values()) for (const header of response.headers) answer.add(header.name);
  }
  for (const name of credentialHeaders) {
    request.delete(name);
    answer.delete(name);
  }
  return { request, answer };
}

/** Of headers as the journal keeps them (credentials masked, values cut), those a traffic document keeps. */
export function keptHeaders(captured: Readonly<Record<string, string>>, names: ReadonlySet<string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of Object.keys(captured)) if (names.has(name)) kept[name] = captured[name]!;
  return kept;
}

/** Of headers as received or sent, those a traffic document keeps, each value as the journal keeps it. */
export function headersToKeep(headers: Parameters<typeof capturedHeaders>[0], names: ReadonlySet<string>): Record<string, string> {
  return keptHeaders(capturedHeaders(headers), names);
}

/**
 * A body whole, as a reader checks it: its text when it is text (UTF-8, without NUL, and not compressed) and at most
 * `maxBytes`; otherwise only its size, `truncated` when it was text past the limit (the reader cannot check it).
 */
export function wholeBody(body: string | Uint8Array | undefined, headers: { contentType?: string; contentEncoding?: string }, maxBytes: number): TrafficBody | null {
  if (body === undefined) return null;
  const bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (bytes === 0) return null;
  const { contentType, contentEncoding } = headers;
  const textual = (contentType === undefined || isTextual(contentType)) && (contentEncoding === undefined || contentEncoding === 'identity');
  if (!textual) return { bytes, text: null, truncated: false };
  if (bytes > maxBytes) return { bytes, text: null, truncated: true };
  const text = typeof body === 'string' ? body : utf8(body);
  return text === undefined || text.includes('\0') ? { bytes, text: null, truncated: false } : { bytes, text, truncated: false };
}
