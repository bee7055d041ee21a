/**
 * An upstream that never stops sending: every request is answered `200` with a JSON content type and then a body
 * written for as long as the connection stays open (as fast as the reader takes it, never buffering ahead). Each
 * answer's bytes written and whether its connection was closed are kept, so that a test or a benchmark can see what
 * a proxy in front of it read, and that it hung up.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EndlessAnswer {
  /** Body bytes handed to the socket so far. */
  written: number;
  /** Resolves when the connection closes (the reader hung up, or the server was closed). */
  closed: Promise<void>;
}

export interface EndlessUpstream {
  url: string;
  /** One per request answered, in order. */
  answers: EndlessAnswer[];
  close(): Promise<void>;
}

const chunk = Buffer.alloc(64 * 1024, 0x20);

/** `headers`: more headers on each answer; `trickle`: one byte every this many milliseconds, rather than at once. */
export async function startEndlessUpstream(options: { headers?: Record<string, string>; trickleMs?: number } = {}): Promise<EndlessUpstream> {
  const answers: EndlessAnswer[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    let closeConnection: () => void = () => undefined;
    const answer: EndlessAnswer = { written: 0, closed: new Promise((resolve) => (closeConnection = resolve)) };
    answers.push(answer);
    let open = true;
    response.once('close', () => {
      open = false;
      closeConnection();
    });
    response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': String(request.headers['x-request-id'] ?? 'none'), ...options.headers });
    // An array that never ends: `[` and then spaces.
    response.write('{"payload":{"data":[');
    if (options.trickleMs !== undefined) {
      const timer = setInterval(() => {
        if (!open) return clearInterval(timer);
        response.write(' ');
        answer.written += 1;
      }, options.trickleMs);
      return;
    }
    const pump = () => {
      while (open) {
        answer.written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
