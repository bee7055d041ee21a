/**
 * A request as the pipeline reads it, whatever carried it: Node's server (node-request.ts) or a Fetch API `Request`
 * (fetch-request.ts: Mock Service Worker, a test calling the mock in process). The pipeline reads the method, the
 * target, the headers (names in lower case, as Node gives them) and the body through this shape only, so it does not
 * know which transport it serves; each adapter maps its own request to it without copying what it need not.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Refusal } from './cut-short.ts';

/** Header names in lower case; a repeated header as Node joins it (a list only for set-cookie). */
export type RequestHeaders = Readonly<IncomingHttpHeaders>;

/** What reading a body found: its bytes, or why it was refused while it came (`hold` said no: `busy`). */
export type BodyBytes = Buffer | 'too-large' | 'busy';

export interface IncomingRequest {
  readonly method: string;
  /** The request target as sent: the path and the query. */
  readonly url: string;
  readonly headers: RequestHeaders;
  /**
   * The peer's address (undefined once its connection is gone); in process, the loopback address: the caller is
   * this process, on this machine.
   */
  readonly remoteAddress: string | undefined;
  /** Whether the request carries a body (on HTTP/1.1: a Content-Length other than 0, or a Transfer-Encoding). */
  readonly hasBody: boolean;
  /**
   * Reads the whole body: `too-large` past `maxBytes` (what is still sent is dropped as it comes), `busy` when
   * `hold` refuses a chunk (told of each chunk's size before it is kept). Rejects with `RequestAborted` when the
   * body ends before it is whole.
   */
  readBody(maxBytes: number, hold: (bytes: number) => boolean): Promise<BodyBytes>;
  /** Drops the body unread (an answer that does not need it). */
  discardBody(): void;
  /** Set when the transport answered the request on its own meanwhile (broken framing, too slow): what it sent. */
  readonly refusal: Refusal | undefined;
  /** Tells the transport which exchange serves the request, so that what it answers on its own carries its id. */
  attach(exchange: { readonly requestId: string }): void;
}
