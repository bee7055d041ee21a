/**
 * Compressing a large answer for a client that accepts it: Brotli, else gzip, else none, as the request's
 * `Accept-Encoding` allows (negotiator), each content encoded once per encoding and kept (the docs are megabytes of
 * inlined Redoc, the same bytes on every request). An answer is checked against its contract before this, on its
 * own bytes: only its size is checked of a body that is not JSON, and compressing keeps it within the bound.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import type { RequestHeaders } from './incoming-request.ts';

const encoders = {
  br: (content: Uint8Array) => promisify(brotliCompress)(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
  gzip: (content: Uint8Array) => promisify(gzip)(content),
};
export type Encoding = keyof typeof encoders | 'identity';
/** Brotli first when the client accepts both equally (browsers send `gzip, deflate, br`): it is smaller. */
const offered: Encoding[] = ['br', 'gzip', 'identity'];
// negotiator 1.x takes the server's order of preference for ties; @types/negotiator (0.6) does not declare it.
const negotiateEncoding = Negotiator.prototype.encoding as unknown as (
  this: Negotiator, available: readonly string[], options: { preferred: readonly string[] },
) => string | undefined;

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
export const minCompressedBytes = 1024;

/** The encoding the request accepts best. */
export function encodingFor(request: { readonly headers: RequestHeaders }): Encoding {
  return (negotiateEncoding.call(new Negotiator(request as ConstructorParameters<typeof Negotiator>[0]), offered, { preferred: offered }) ?? 'identity') as Encoding;
}

const encoded = new WeakMap<Uint8Array, Map<Encoding, Promise<Uint8Array>>>();

/** The content in that encoding, made once per content and encoding. */
export function encode(content: Uint8Array, encoding: Encoding): Promise<Uint8Array> {
  if (encoding === 'identity') return Promise.resolve(content);
  let forContent = encoded.get(content);
  if (!forContent) encoded.set(content, (forContent = new Map()));
  let result = forContent.get(encoding);
  if (!result) forContent.set(encoding, (result = encoders[encoding](content)));
  return result;
}

/** Whether a media type is worth compressing: text, JSON, JavaScript, CSS, SVG (not a PDF, already compressed). */
export function compressible(contentType: string | undefined): boolean {
  return /^(text\/|application\/(json|javascript|[\w.+-]+\+json)|image\/svg\+xml)/i.test(contentType ?? '');
}
