/**
 * What the journal keeps of a request or an answer: its headers and its body, as a person debugging an integration
 * needs them and no more. Secrets are masked: a header or query parameter whose name says it holds a credential
 * (`authorization`, `cookie`, `*token*`, `*secret*`, `*api-key*`, `signature`…), or whose name holds an API key or
 * a webhook secret or the start of one (a key split across a name and its value), as `[masked]`, and the API key in
 * `authorization` as its masked form. A key or secret anywhere else (a path, a query, a header's name or value, a
 * body) is masked in the entry as a whole, as it is encoded (journal-records.ts), by the one rule that finds them
 * (contract-model/credentials.ts). Every value is cut to a bounded length, and its JSON too (a body of control
 * characters would otherwise take six times its size), and a body that is not text (a PDF) is summarised by its
 * size: an entry stays small whatever was sent, and the journal never becomes a store of keys or documents.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { holdsCredential, masked } from '../../contract-model/credentials.ts';

export { masked } from '../../contract-model/credentials.ts';

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
  /** The query string as sent, without `?`, parameters named as credentials masked, cut to `maxQueryLength`. */
  query: string;
  /** Whether `query` holds only the start of it. */
  queryTruncated: boolean;
}

export const maxBodyCharacters = 16 * 1024;
export const maxHeaders = 64;
export const maxQueryLength = 2048;
export const maxHeaderValueLength = 1024;
const maxHeaderNameLength = 100;

/** A header or query parameter whose name says it carries a credential: never kept as sent. */
const credentialName = /authorization|cookie|token|secret|passw(or)?d|api[-_]?key|signature|session/i;
/** Whether a name says its value is a credential, or holds one itself (the rest of it may be the value). */
const namesCredential = (name: string) => credentialName.test(name) || holdsCredential(name);
/** Most bytes a body's text may take in the journal, as JSON: its characters are cut further when escapes would pass it. */
const maxBodyJsonBytes = 32 * 1024;

/**
 * A request's or an answer's headers as kept: names lower-cased, repeated values joined, credentials masked
 * (`authorization` shows as `maskedKey` when the request carried a valid key), at most `maxHeaders` of them.
 */
export function capturedHeaders(headers: IncomingHttpHeaders | Record<string, string>, maskedKey?: string): Record<string, string> {
  const kept: Record<string, string> = Object.create(null); // `__proto__` is a header name like any other
  let count = 0;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (count === maxHeaders) break;
    count += 1;
    const lower = name.length <= maxHeaderNameLength && !/[A-Z]/.test(name) ? name : cut(name.toLowerCase(), maxHeaderNameLength);
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (isCredential(lower)) kept[lower] = lower === 'authorization' && maskedKey !== undefined ? maskedKey : masked;
    // Written at every request: most values need nothing done, and are kept as they are after one test.
    else kept[lower] = text.length <= maxHeaderValueLength && !needsCare.test(text) ? text : cut(printable(text), maxHeaderValueLength);
  }
  return kept;
}

/** A value with a control character in it. */
const needsCare = /[\x00-\x08\x0A-\x1F\x7F]/;
/** Header names seen, and whether each names a credential: the same few names come with every request. */
const credentialNames = new Map<string, boolean>();
function isCredential(name: string): boolean {
  let found = credentialNames.get(name);
  if (found === undefined) {
    found = namesCredential(name);
    if (credentialNames.size < 1000) credentialNames.set(name, found);
  }
  return found;
}

/**
 * The query string of a request target (`/path?a=1` → `a=1`): a parameter whose name says it is a credential
 * masked, any space or control character escaped, cut to `maxLength` (never inside a `%XX` escape).
 */
export function capturedQuery(target: string | undefined, maxLength = maxQueryLength): { query: string; queryTruncated: boolean } {
  const start = target?.indexOf('?') ?? -1;
  if (start < 0) return { query: '', queryTruncated: false };
  const escaped = (target as string).slice(start + 1).replace(/[\x00-\x20\x7F]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const query = escaped
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals > 0 && namesCredential(safeDecode(pair.slice(0, equals))) ? `${pair.slice(0, equals)}=${masked}` : pair;
    })
    .join('&');
  if (query.length <= maxLength) return { query, queryTruncated: false };
  let end = maxLength;
  const escapeStart = query.lastIndexOf('%', end - 1);
  if (escapeStart >= end - 2) end = escapeStart;
  return { query: query.slice(0, end), queryTruncated: true };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
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
  let kept = cut(text, maxBodyCharacters, '').replaceAll('\0', '\uFFFD');
  let truncated = cutAlready || kept.length < text.length;
  // A short text cannot pass the bound however it is escaped (six bytes a character at most).
  if (kept.length * 6 > maxBodyJsonBytes) {
    for (let json = JSON.stringify(kept).length; json > maxBodyJsonBytes; json = JSON.stringify(kept).length) {
      kept = cut(kept, Math.floor((kept.length * maxBodyJsonBytes) / json) - 8, '');
      truncated = true;
    }
  }
  return { bytes, text: kept, truncated };
}

const textualType = /^(text\/|application\/([\w.+-]*\+)?(json|xml|x-www-form-urlencoded|javascript|yaml|x-ndjson)\b)/i;
/** Whether a content type declares text (a JSON, XML, form or plain body), which is kept as text. */
export function isTextual(contentType: string): boolean {
  return textualType.test(contentType.trim());
}

const fatal = new TextDecoder('utf-8', { fatal: true });
/** The bytes as UTF-8 text, or undefined when they are not; `partial`: they end mid-body, perhaps mid-character. */
export function utf8(bytes: Uint8Array, partial = false): string | undefined {
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

/** Every control character, tab included, shown as U+FFFD: for values the journal's schemas keep to one plain line. */
export function withoutControls(text: string): string {
  return text.replace(/[\x00-\x1F\x7F]/g, '\uFFFD');
}

/** At most `length` UTF-16 units, never ending in half a surrogate pair, `ellipsis` added when cut. */
export function cut(text: string, length: number, ellipsis = '…'): string {
  if (text.length <= length) return text;
  let end = length - ellipsis.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${ellipsis}`;
}
