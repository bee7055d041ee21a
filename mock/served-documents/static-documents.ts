/**
 * The documents the mock serves beside the API: its reference docs (`/` and `/docs`), the bundled contract
 * (`/openapi.json`, listing the mock as its first server) and the changelog the docs link to (`/CHANGELOG.md`).
 * Read-only, so only GET and HEAD (anything else is the API's 405, with `Allow`); compressed with Brotli or gzip
 * when the client accepts it, since the docs are megabytes of inlined Redoc. Each encoding is made once per
 * content and kept. Served as a channel of their own (send-answer.ts), so that their answers are written like
 * every other, and API requests never pass through them.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import { ApiError } from '../http/api-error.ts';
import { assignRequestId } from '../pipeline/assign-request-id.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { respond } from '../pipeline/reply.ts';
import type { Channel } from '../pipeline/send-answer.ts';

export interface StaticDocument {
  contentType: string;
  /** Headers of its own (a page's Content-Security-Policy). */
  headers?: Record<string, string>;
  /** The content; called on each request, so a document that changes on disk (the changelog) is served fresh. */
  read(): Promise<Buffer | undefined>;
  /** What the 404 says when `read` finds nothing. */
  missing?: string;
}

const encoders = {
  br: (content: Buffer) => promisify(brotliCompress)(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
  gzip: (content: Buffer) => promisify(gzip)(content),
};
type Encoding = keyof typeof encoders | 'identity';
/** Brotli first when the client accepts both equally (browsers send `gzip, deflate, br`): it is smaller. */
const offered: Encoding[] = ['br', 'gzip', 'identity'];
// negotiator 1.x takes the server's order of preference for ties; @types/negotiator (0.6) does not declare it.
const negotiateEncoding = Negotiator.prototype.encoding as unknown as (
  this: Negotiator, available: readonly string[], options: { preferred: readonly string[] },
) => string | undefined;

export interface DocumentsChannel extends Channel {
  serves(pathname: string): boolean;
}

export function createStaticDocuments(documents: Record<string, StaticDocument>): DocumentsChannel {
  const encoded = new WeakMap<Buffer, Map<Encoding, Promise<Buffer>>>();
  const encode = (content: Buffer, encoding: Encoding): Promise<Buffer> => {
    if (encoding === 'identity') return Promise.resolve(content);
    let forContent = encoded.get(content);
    if (!forContent) encoded.set(content, (forContent = new Map()));
    let result = forContent.get(encoding);
    if (!result) forContent.set(encoding, (result = encoders[encoding](content)));
    return result;
  };

  const serve = async (exchange: Exchange) => {
    const document = documents[exchange.url.pathname] as StaticDocument;
    if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
      exchange.request.resume();
      return respond(exchange, new ApiError(405, 'E_METHOD_NOT_ALLOWED', `${exchange.method} is not allowed here; allowed: GET, HEAD.`, undefined, { allow: 'GET, HEAD' }));
    }
    const content = await document.read();
    if (content === undefined) return respond(exchange, new ApiError(404, 'E_NOT_FOUND', document.missing ?? `No document at ${exchange.url.pathname}.`));
    const encoding = (negotiateEncoding.call(new Negotiator(exchange.request), offered, { preferred: offered }) ?? 'identity') as Encoding;
    const headers: Record<string, string> = { ...document.headers, 'content-type': document.contentType, vary: 'accept-encoding', 'cache-control': 'no-cache' };
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    exchange.response = { status: 200, headers, body: await encode(content, encoding) };
  };

  return {
    serves: (pathname) => Object.hasOwn(documents, pathname),
    run: (exchange) => Promise.resolve(assignRequestId(exchange, () => serve(exchange))),
    finalise(exchange) {
      const answer = exchange.response;
      if (answer && !answer.finalHeaders) answer.finalHeaders = { 'x-request-id': exchange.requestId, ...answer.headers };
    },
    // Documents are not API requests: neither journaled nor logged one by one.
    record: () => undefined,
  };
}
