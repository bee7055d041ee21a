/**
 * The documents the mock serves beside the API: its reference docs (`/` and `/docs`), the bundled contract
 * (`/openapi.json`, listing the mock as its first server) and the changelog the docs link to (`/CHANGELOG.md`).
 * Read-only, so only GET and HEAD (anything else is the API's 405, with `Allow`); compressed with Brotli or gzip
 * when the client accepts it (http/content-encoding.ts), since the docs are megabytes of inlined Redoc. Served as
 * a channel of their own (send-answer.ts), so that their answers are written like every other, and API requests
 * never pass through them.
 */
import { ApiError } from '../http/api-error.ts';
import { encode, encodingFor } from '../http/content-encoding.ts';
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

export interface DocumentsChannel extends Channel {
  serves(pathname: string): boolean;
}

export function createStaticDocuments(documents: Record<string, StaticDocument>): DocumentsChannel {
  const serve = async (exchange: Exchange) => {
    const document = documents[exchange.url.pathname] as StaticDocument;
    if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
      exchange.request.resume();
      return respond(exchange, new ApiError(405, 'E_METHOD_NOT_ALLOWED', `${exchange.method} is not allowed here; allowed: GET, HEAD.`, undefined, { allow: 'GET, HEAD' }));
    }
    const content = await document.read();
    if (content === undefined) return respond(exchange, new ApiError(404, 'E_NOT_FOUND', document.missing ?? `No document at ${exchange.url.pathname}.`));
    const encoding = encodingFor(exchange.request);
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
