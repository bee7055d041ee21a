/**
 * The documents the mock serves beside its routes: the API's reference docs (`/` and `/docs`), the bundled
 * contract (`/openapi.json`) and the changelog the docs link to (`/CHANGELOG.md`). Read-only, so only GET and
 * HEAD (anything else is the API's 405, with `Allow`); compressed with Brotli or gzip when the client accepts it,
 * since the docs are megabytes of inlined Redoc. Each encoding is made once per content and kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';
import { newRequestId, validRequestId } from '../steps/assign-request-id.ts';

export interface StaticDocument {
  contentType: string;
  /** The content; called on each request, so a document that changes on disk (the changelog) is served fresh. */
  read(): Promise<Buffer | undefined>;
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

export function createStaticDocuments(documents: Record<string, StaticDocument>) {
  const encoded = new WeakMap<Buffer, Map<Encoding, Promise<Buffer>>>();
  const encode = (content: Buffer, encoding: Encoding): Promise<Buffer> => {
    if (encoding === 'identity') return Promise.resolve(content);
    let forContent = encoded.get(content);
    if (!forContent) encoded.set(content, (forContent = new Map()));
    let result = forContent.get(encoding);
    if (!result) forContent.set(encoding, (result = encoders[encoding](content)));
    return result;
  };

  /** Serves `pathname` if it is one of the documents; false otherwise. */
  return async function serve(request: IncomingMessage, response: ServerResponse, pathname: string): Promise<boolean> {
    const document = documents[pathname];
    if (!document) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      refuseMethod(request, response);
      return true;
    }
    const content = await document.read();
    if (content === undefined) return false;
    const encoding = (negotiateEncoding.call(new Negotiator(request), offered, { preferred: offered }) ?? 'identity') as Encoding;
    const body = await encode(content, encoding);
    response.writeHead(200, {
      'content-type': document.contentType,
      'content-length': body.length,
      vary: 'accept-encoding',
      'cache-control': 'no-cache',
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  };
}

function refuseMethod(request: IncomingMessage, response: ServerResponse): void {
  const sent = request.headers['x-request-id'];
  const requestId = typeof sent === 'string' && validRequestId.test(sent) ? sent : newRequestId();
  const error = { code: 'E_METHOD_NOT_ALLOWED', message: `${request.method ?? ''} is not allowed here; allowed: GET, HEAD.`, requestId };
  request.resume();
  response.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD', 'x-request-id': requestId }).end(JSON.stringify({ payload: null, error }));
}
