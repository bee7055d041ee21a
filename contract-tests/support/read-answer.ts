/**
 * Reads an HTTP/1.1 answer off a raw socket, as a test that wrote the request by hand needs it: no HTTP client
 * would send those requests. Depends on nothing else of the suite, so that the mock's own tests use it too.
 */
import type { Socket } from 'node:net';

export interface SocketAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The parsed body when it was JSON. */
  json: unknown;
  /** `error.code` of the error envelope, when there was one. */
  errorCode: string | undefined;
}

/** The first final answer read off the socket: settles once its Content-Length bytes are in, or at close. */
export function readAnswer(socket: Socket): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const parse = (atClose: boolean): SocketAnswer | undefined => {
      for (;;) {
        const headEnd = bytes.indexOf('\r\n\r\n');
        if (headEnd < 0) return undefined;
        const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
        const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
        if (status >= 100 && status < 200) {
          bytes = bytes.subarray(headEnd + 4);
          continue;
        }
        const headers = new Headers();
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        const declared = headers.get('content-length');
        const length = declared === null ? undefined : Number(declared);
        const rest = bytes.subarray(headEnd + 4);
        if (length === undefined ? !atClose : rest.length < length) return undefined;
        const body = length === undefined ? rest : rest.subarray(0, length);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
        return { status, headers, body, json, errorCode: typeof code === 'string' ? code : undefined };
      }
    };
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      const answer = parse(false);
      if (answer) resolve(answer);
    });
    socket.on('close', () => {
      const answer = parse(true);
      if (answer) resolve(answer);
      else reject(new Error(`the connection closed without an answer; got ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
    });
  });
}
