/**
 * A Fetch API `Request` as the pipeline reads it (incoming-request.ts): what Mock Service Worker hands its handlers,
 * in Node and in a browser, and what a test passes the mock in process. Its headers are copied once into the plain
 * object the pipeline reads (names in lower case, as Node gives them), with the two a wire would have added: `host`,
 * from the URL, as HTTP sends it; and no `accept-encoding`, since nothing is compressed where nothing goes over a
 * wire (a `Response` made in process is read as it is, never decoded). The body is read from its stream as it
 * comes, within the same limits as on the server.
 */
import { RequestAborted, type Refusal } from './cut-short.ts';
import type { BodyBytes, IncomingRequest, RequestHeaders } from './incoming-request.ts';

/** The address an in-process request comes from: this machine's, as a request over loopback would. */
export const inProcessAddress = '127.0.0.1';

export class FetchRequest implements IncomingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: RequestHeaders;
  readonly remoteAddress = inProcessAddress;
  readonly hasBody: boolean;
  readonly refusal: Refusal | undefined = undefined;

  constructor(
    private readonly request: Request,
    target: URL,
  ) {
    this.method = request.method;
    this.url = `${target.pathname}${target.search}`;
    this.hasBody = request.body !== null;
    // No prototype: a header named `__proto__` is a header, not the object's prototype.
    const headers: Record<string, string> = Object.create(null);
    headers.host = target.host;
    // Headers iterates in lower case, a repeated header joined with ", " as Node joins it.
    request.headers.forEach((value, name) => {
      if (name !== 'accept-encoding') headers[name] = value;
    });
    this.headers = headers;
  }

  attach(): void {}

  discardBody(): void {
    void this.request.body?.cancel().catch(() => undefined);
  }

  async readBody(maxBytes: number, hold: (bytes: number) => boolean): Promise<BodyBytes> {
    const body = this.request.body;
    if (body === null) return Buffer.alloc(0);
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const refuse = (why: 'too-large' | 'busy') => {
      void reader.cancel().catch(() => undefined);
      return why;
    };
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        throw new RequestAborted(error instanceof Error ? error.message : String(error));
      }
      if (read.done) return Buffer.concat(chunks, size);
      size += read.value.byteLength;
      if (size > maxBytes) return refuse('too-large');
      if (!hold(read.value.byteLength)) return refuse('busy');
      chunks.push(read.value);
    }
  }
}
