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
  readonly refusal: Refusal | undefined = undefined;

  /**
   * A request's body is a stream whatever it holds (an empty string too), where a wire says its length: its first
   * chunk is read first, so that an empty one is no body, as `Content-Length: 0` is none on HTTP/1.1.
   */
  static async of(request: Request, target: URL): Promise<FetchRequest> {
    const reader = request.body?.getReader();
    let first: Awaited<ReturnType<NonNullable<typeof reader>['read']>> | undefined;
    try {
      first = await reader?.read();
    } catch (error) {
      throw new RequestAborted(error instanceof Error ? error.message : String(error));
    }
    const body = reader && first && !first.done ? { reader, first: first.value } : undefined;
    return new FetchRequest(request, target, body);
  }

  private constructor(
    request: Request,
    target: URL,
    private readonly body: { reader: ReadableStreamDefaultReader<Uint8Array>; first: Uint8Array } | undefined,
  ) {
    this.method = request.method;
    this.url = `${target.pathname}${target.search}`;
    // No prototype: a header named `__proto__` is a header, not the object's prototype.
    const headers: Record<string, string> = Object.create(null);
    headers.host = target.host;
    // Headers iterates in lower case, a repeated header joined with ", " as Node joins it.
    request.headers.forEach((value, name) => {
      if (name !== 'accept-encoding') headers[name] = value;
    });
    this.headers = headers;
  }

  get hasBody(): boolean {
    return this.body !== undefined;
  }

  attach(): void {}

  discardBody(): void {
    void this.body?.reader.cancel().catch(() => undefined);
  }

  async readBody(maxBytes: number, hold: (bytes: number) => boolean): Promise<BodyBytes> {
    if (this.body === undefined) return Buffer.alloc(0);
    const { reader, first } = this.body;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let next: Uint8Array | undefined = first;
    const refuse = (why: 'too-large' | 'busy') => {
      void reader.cancel().catch(() => undefined);
      return why;
    };
    while (next !== undefined) {
      size += next.byteLength;
      if (size > maxBytes) return refuse('too-large');
      if (!hold(next.byteLength)) return refuse('busy');
      chunks.push(next);
      try {
        const read = await reader.read();
        next = read.done ? undefined : read.value;
      } catch (error) {
        throw new RequestAborted(error instanceof Error ? error.message : String(error));
      }
    }
    return Buffer.concat(chunks, size);
  }
}
