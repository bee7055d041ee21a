/**
 * The documents the mock serves beside the API: its reference docs (`/` and `/docs`), the bundled contract
 * (`/openapi.json`, listing the mock as its first server) and the changelog the docs link to (`/CHANGELOG.md`).
 * Read-only, so only GET and HEAD (anything else is the API's 405, with `Allow`); compressed with Brotli or gzip
 * when the client accepts it (http/content-encoding.ts), since the docs are megabytes of inlined Redoc; each with an
 * ETag of its bytes, so that a browser revalidating one it holds gets a 304 rather than the megabytes again. Served
 * as a channel of their own (send-answer.ts), so that their answers are written like every other, and API requests
 * never pass through them.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { AnswerStream } from '../http/answer.ts';
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
  /**
   * The content; called on each request, so a document that changes on disk (the changelog) is served fresh.
   * `origin`: the URL the links it makes are made with, for this request (http/own-hosts.ts).
   */
  read(origin: string): Promise<Buffer | undefined>;
  /** What the 404 says when `read` finds nothing. */
  missing?: string;
}

/** A document written as it comes, for as long as the client stays: server-sent events. */
export interface StreamDocument {
  contentType: string;
  headers?: Record<string, string>;
  stream(origin: string): Promise<AnswerStream>;
}

export type ServedDocument = StaticDocument | StreamDocument;

export interface DocumentsChannel extends Channel {
  serves(pathname: string): boolean;
}

/** `originOf`: the URL of the links a document makes, for the Host a request came with. */
export function createStaticDocuments(documents: Record<string, ServedDocument>, originOf: (host: string | undefined) => string): DocumentsChannel {
  const serve = async (exchange: Exchange) => {
    const origin = originOf(exchange.request.headers.host);
    const document = documents[exchange.url.pathname] as ServedDocument;
    if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
      exchange.request.discardBody();
      return respond(exchange, new ApiError(405, 'E_METHOD_NOT_ALLOWED', `${exchange.method} is not allowed here; allowed: GET, HEAD.`, undefined, { allow: 'GET, HEAD' }));
    }
    const own = { ...document.headers, 'content-type': document.contentType, 'cache-control': 'no-cache' };
    if ('stream' in document) {
      exchange.response = { status: 200, headers: own, body: '', stream: await document.stream(origin) };
      return;
    }
    const content = await document.read(origin);
    if (content === undefined) return respond(exchange, new ApiError(404, 'E_NOT_FOUND', document.missing ?? `No document at ${exchange.url.pathname}.`));
    const etag = etagOf(content);
    const headers: Record<string, string> = { ...own, vary: 'accept-encoding', etag };
    if (matches(exchange.request.headers['if-none-match'], etag)) {
      exchange.response = { status: 304, headers, body: '' };
      return;
    }
    const encoding = encodingFor(exchange.request);
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

const etags = new WeakMap<Buffer, string>();

/** A strong ETag of the bytes, made once per content (its encodings share it: they are the same bytes once decoded). */
export function etagOf(content: Buffer): string {
  let etag = etags.get(content);
  if (etag === undefined) etags.set(content, (etag = `"${createHash('sha256').update(content).digest('base64url').slice(0, 32)}"`));
  return etag;
}

/** Whether `If-None-Match` names the ETag (or is `*`): the client holds these bytes already. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * A file read again only when it changed (its modification time), through `transform`: `npm run generate` rewrites
 * the docs while the mock runs, and the page must follow without a restart; otherwise one read serves every
 * request, and the same bytes keep their compressed forms and their ETag.
 */
export function freshFile(path: string, transform: (content: Buffer) => Buffer): () => Promise<Buffer | undefined> {
  let kept: { mtimeMs: number; content: Promise<Buffer> } | undefined;
  return async () => {
    const { mtimeMs } = await stat(path);
    if (kept?.mtimeMs !== mtimeMs) kept = { mtimeMs, content: readFile(path).then(transform) };
    return kept.content;
  };
}
