/**
 * Writes an answer: the one place the mock puts an answer on the wire, whether through Node's response or, for a
 * request Node refused before any route, on the socket itself. A known length lets Node send the head and the body
 * in one write, without chunked framing; a HEAD answer carries the length its GET would have.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Answer } from './answer.ts';

/** How long a refused connection stays open after its answer, for the client to read it before the socket goes. */
const lingerMs = 1_000;

export type Destination = { response: ServerResponse } | { socket: Duplex };

export function writeAnswer(destination: Destination, answer: Answer, method: string): void {
  const headers = { ...(answer.finalHeaders ?? answer.headers), 'content-length': String(Buffer.byteLength(answer.body)) };
  const body = method === 'HEAD' ? undefined : answer.body;
  if ('response' in destination) {
    destination.response.writeHead(answer.status, headers);
    destination.response.end(body);
    return;
  }
  const { socket } = destination;
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`, `date: ${new Date().toUTCString()}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body === undefined ? Buffer.alloc(0) : Buffer.from(body)]));
  // Closing at once could reset the connection under bytes the client still sends, and lose the answer with it.
  const linger = setTimeout(() => socket.destroy(), lingerMs);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
