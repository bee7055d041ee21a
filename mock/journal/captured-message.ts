/**
 * What the journal keeps of a request or an answer: its headers and its body, as a person debugging an integration
 * needs them and no more. Secrets are masked (the API key shows as its masked form, any other credential as
 * `[masked]`), every value is cut to a bounded length, and a body that is not text (a PDF) is summarised by its size:
 * an entry stays small whatever was sent, and the journal never becomes a store of keys or documents.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface CapturedBody {
  /** The body's whole size in bytes, kept or not. */
  bytes: number;
  /** The body as UTF-8 text, cut to `maxBodyCharacters`, NUL shown as U+FFFD; null for a body that is not text (summarised). */
  text: string | null;
  /** Whether `text` holds only the start of the body. */
  truncated: boolean;
}

export interface CapturedMessage {
  headers: Record<string, string>;
  /** Null when there was none (or, for a request refused before its body was read, none was read). */
  body: CapturedBody | null;
}

/** A request as kept: with its query string, so that it can be sent again (copied as curl). */
export interface CapturedRequest extends CapturedMessage {
  /** The query string as sent, without `?`, cut to `maxQueryLength`. */
  query: string;
}

export const maxBodyCharacters = 16 * 1024;
export const maxHeaders = 64;
export const maxQueryLength = 2048;
export const maxHeaderValueLength = 1024;
const maxHeaderNameLength = 100;

/** Headers that carry a credential: never kept as sent. */
const credentialHeaders = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-mock-admin-token']);
export const masked = '[masked]';

/**
 * A request's or an answer's headers as kept: names lower-cased, repeated values joined, credentials masked
 * (`authorization` shows as `maskedKey` when the request carried a valid key), at most `maxHeaders` of them.
 */
export function capturedHeaders(headers: IncomingHttpHeaders | Record<string, string>, maskedKey?: string): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (count === maxHeaders) break;
    count += 1;
    const lower = cut(name.toLowerCase(), maxHeaderNameLength);
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    kept[lower] = credentialHeaders.has(lower) ? (lower === 'authorization' && maskedKey !== undefined ? maskedKey : masked) : cut(printable(text), maxHeaderValueLength);
  }
  return kept;
}

/** The query string of a request target (`/path?a=1` → `a=1`), cut, any space or control character escaped. */
export function capturedQuery(target: string | undefined): string {
  const start = target?.indexOf('?') ?? -1;
  if (start < 0) return '';
  const query = (target as string).slice(start + 1).replace(/[\x00-\x20\x7F]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return cut(query, maxQueryLength, '');
}

/** A body as kept: text cut to `maxBodyCharacters`, anything else only its size. */
export function capturedBody(body: string | Uint8Array | undefined, contentType: string | undefined): CapturedBody | null {
  if (body === undefined) return null;
  if (typeof body === 'string') return textBody(body, Buffer.byteLength(body));
  if (body.byteLength === 0) return null;
  if (contentType !== undefined && !isTextual(contentType)) return { bytes: body.byteLength, text: null, truncated: false };
  // Undeclared or declared as text: kept as text only when it is UTF-8 (bytes sent as JSON that are not, a PDF
  // without a content type, are summarised instead of shown as replacement characters).
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, maxBodyCharacters * 4));
  const text = utf8(head, head.byteLength < body.byteLength);
  return text === undefined ? { bytes: body.byteLength, text: null, truncated: false } : textBody(text, body.byteLength, head.byteLength < body.byteLength);
}

function textBody(text: string, bytes: number, cutAlready = false): CapturedBody | null {
  if (bytes === 0) return null;
  const kept = cut(text, maxBodyCharacters, '').replaceAll('\0', '\uFFFD');
  return { bytes, text: kept, truncated: cutAlready || kept.length < text.length };
}

const textualType = /^(text\/|application\/([\w.+-]*\+)?(json|xml|x-www-form-urlencoded|javascript|yaml|x-ndjson)\b)/i;
function isTextual(contentType: string): boolean {
  return textualType.test(contentType.trim());
}

const fatal = new TextDecoder('utf-8', { fatal: true });
/** The bytes as UTF-8 text, or undefined when they are not; `partial`: they end mid-body, perhaps mid-character. */
function utf8(bytes: Buffer, partial: boolean): string | undefined {
  try {
    // A streaming decode keeps the unfinished character for the next call: a decoder of its own, then.
    return partial ? new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true }) : fatal.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Control characters other than tab shown as U+FFFD, so that a header value prints on one line. */
function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0A-\x1F\x7F]/g, '\uFFFD');
}

/** At most `length` UTF-16 units, never ending in half a surrogate pair, `ellipsis` added when cut. */
function cut(text: string, length: number, ellipsis = '…'): string {
  if (text.length <= length) return text;
  let end = length - ellipsis.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${ellipsis}`;
}
