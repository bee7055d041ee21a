/**
 * Writes an answer: the one place the mock puts an answer on the wire, whether through Node's response or, for a
 * request Node refused before any route, on the socket itself. A known length lets Node send the head and the body
 * in one write, without chunked framing; a HEAD answer carries the length its GET would have.
 *
 * The answer is made ready as every transport makes it (sendable-answer.ts: header values escaped, so that no text
 * an answer quotes can make writing it fail; what cannot be written at all answered as a 500 that says so), and
 * written here with its own reason phrase; the caller is handed the answer as sent, so that the journal keeps what
 * the client got. fetch-answer.ts is the same for a Fetch API `Response`.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Answer, AnswerStream } from './answer.ts';
import type { ApiError } from './api-error.ts';
import type { EventStreams } from './event-streams.ts';
import { readyToSend, type AnswerWriter, type Sendable, type Sent } from './sendable-answer.ts';

export type { Sent } from './sendable-answer.ts';

/**
 * How a connection closed after its answer goes on being read (lingering, as nginx's lingering_timeout and
 * lingering_time): closed once nothing came for `lingerIdleMs`, and in any case after `lingerMaxMs` or
 * `lingerMaxBytes` dropped, so that a client that never stops sending costs a bounded time and bandwidth.
 */
const lingerIdleMs = 2_000;
const lingerMaxMs = 10_000;
const lingerMaxBytes = 64 * 1024 * 1024;
/**
 * Connections lingering at once. What they drop is read into memory first, and a thousand clients refused while
 * sending (an attack on the body budget) would have the process read a gigabyte of garbage in a few seconds: past
 * this many, a connection is closed at once, as it was before lingering, and only those clients may miss their answer.
 */
const maxLingering = 64;
let lingering = 0;

/** Connections whose answer is out and whose closing has begun: nothing more is read from them as a request. */
const closing = new WeakSet<Duplex>();

export function isClosing(socket: Duplex): boolean {
  return closing.has(socket);
}

/**
 * Closes a connection in stages (RFC 9112, section 9.6): the write side first, after the answer, then the whole once
 * the client has closed its side or stopped sending (within the bounds above), reading and dropping whatever it
 * still sends meanwhile. Closed at once, or while the client is still sending, the socket would answer the bytes
 * still coming (the rest of a refused upload) with a reset, and a reset can erase the answer from the client's
 * buffers before the client has read it: a client that writes its whole body before it reads (on a slow link, for
 * seconds) would never see its 413.
 */
function closeInStages(socket: Duplex): void {
  if (closing.has(socket)) return;
  closing.add(socket);
  socket.end();
  // Its answer handed to the system first (`finish`), then closed.
  if (lingering >= maxLingering) return void (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy()));
  lingering += 1;
  let dropped = 0;
  const close = () => socket.destroy();
  // Unref'd: a closing connection never keeps the process alive.
  const after = (ms: number) => setTimeout(close, ms).unref();
  let idle = after(lingerIdleMs);
  const most = after(lingerMaxMs);
  // What the client still sends is no request: the HTTP parser no longer reads it.
  socket.removeAllListeners('data');
  socket.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > lingerMaxBytes) return close();
    clearTimeout(idle);
    idle = after(lingerIdleMs);
  });
  socket.resume();
  socket.once('end', close);
  socket.once('close', () => {
    lingering -= 1;
    clearTimeout(idle);
    clearTimeout(most);
  });
}

/**
 * Where an answer goes: Node's response (with the server's streams, which run and bound an answer written as it
 * comes), or the socket itself, for a request Node refused before any route.
 */
export type Destination = { response: ServerResponse; streams?: EventStreams } | { socket: Duplex };

/**
 * Writes the head at once, then hands the response to the server's streams (event-streams.ts), which write whatever
 * the stream writes until the client leaves or a bound ends it: no length, so Node frames it in chunks. A HEAD
 * request gets the head alone.
 */
function writeStream(response: ServerResponse, streams: EventStreams, answer: Sendable & { stream: AnswerStream }, method: string): void {
  response.writeHead(answer.status, reasonOf(answer.status), { ...answer.finalHeaders, 'x-accel-buffering': 'no' });
  if (method === 'HEAD') return void response.end();
  response.flushHeaders();
  streams.run(response, answer.stream, { requestId: answer.finalHeaders['x-request-id'] ?? 'unknown' });
}

export function writeAnswer(destination: Destination, answer: Answer, method: string): Sent {
  const { sendable: sent, unwritable } = readyToSend(answer, 'streams' in destination && destination.streams ? undefined : 'it is a stream, and this connection has no server streams to run it');
  write(destination, sent, method);
  return unwritable === undefined ? { answer: sent } : { answer: sent, unwritable };
}

/** Node's server as the pipeline's writer of answers: one per request, over its response and the server's streams. */
export class NodeAnswerWriter implements AnswerWriter {
  constructor(
    readonly response: ServerResponse,
    readonly streams?: EventStreams,
  ) {}

  streamRefusal(context: { requestId: string; path: string }): ApiError | undefined {
    return this.streams?.refusal(context);
  }

  write(answer: Answer, method: string): Sent {
    return writeAnswer(this.streams ? { response: this.response, streams: this.streams } : { response: this.response }, answer, method);
  }
}

function write(destination: Destination, answer: Sendable, method: string): void {
  if (answer.stream && 'streams' in destination && destination.streams) return writeStream(destination.response, destination.streams, answer as Sendable & { stream: AnswerStream }, method);
  const headers: Record<string, string | string[]> = { ...answer.finalHeaders, 'content-length': String(Buffer.byteLength(answer.body)) };
  if (answer.setCookies?.length) headers['set-cookie'] = [...answer.setCookies];
  const body = method === 'HEAD' ? undefined : answer.body;
  if ('response' in destination) {
    const { response } = destination;
    const { socket } = response;
    // Node ends a connection whose answer says `Connection: close` by destroying it as soon as the answer is out.
    if (socket && /\bclose\b/i.test(String(headers.connection ?? ''))) socket.destroySoon = () => closeInStages(socket);
    // The reason phrase given every time: Node keeps the one of an earlier writeHead that failed (a 500 sent "OK").
    response.writeHead(answer.status, reasonOf(answer.status), headers);
    response.end(body);
    return;
  }
  const { socket } = destination;
  const lines = Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((one) => `${name}: ${one}`));
  const head = [`HTTP/1.1 ${answer.status} ${reasonOf(answer.status)}`, `date: ${new Date().toUTCString()}`, ...lines];
  socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body === undefined ? Buffer.alloc(0) : Buffer.from(body)]));
  closeInStages(socket);
}

function reasonOf(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}
