/**
 * Writes an answer: the one place the mock puts an answer on the wire, whether through Node's response or, for a
 * request Node refused before any route, on the socket itself. A known length lets Node send the head and the body
 * in one write, without chunked framing; a HEAD answer carries the length its GET would have.
 *
 * Every header value is written with the characters a header may carry (header-value.ts escapes the rest), so that
 * no text an answer quotes (a violation, a field name, an upstream's header) can make writing it fail. What cannot
 * be written at all (a header name that is no token, a status HTTP does not have: a bug) is answered as a 500 that
 * says so, with its own reason phrase; the caller is handed the answer as sent, so that the journal keeps what the
 * client got.
 */
import { STATUS_CODES, validateHeaderName, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorAnswer, type Answer, type AnswerStream } from './answer.ts';
import type { EventStreams } from './event-streams.ts';
import { headerValue } from './header-value.ts';
import { validRequestId } from './request-id.ts';

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

/** An answer as it is sent: its header values escaped. */
type Sendable = Answer & { finalHeaders: Record<string, string> };

/** What `writeAnswer` sent: the answer as the client got it, and, when the one given could not be sent, why. */
export interface Sent {
  answer: Answer;
  /** Set when the answer given could not be written at all and a 500 went instead: what was wrong with it. */
  unwritable?: string;
}

export function writeAnswer(destination: Destination, answer: Answer, method: string): Sent {
  const given = sendable(answer);
  const unwritable = problemOf(given) ?? (given.stream && !('streams' in destination && destination.streams) ? 'it is a stream, and this connection has no server streams to run it' : undefined);
  const sent = unwritable === undefined ? given : sendable(unwritableAnswer(given, unwritable));
  write(destination, sent, method);
  return unwritable === undefined ? { answer: sent } : { answer: sent, unwritable };
}

function write(destination: Destination, answer: Sendable, method: string): void {
  if (answer.stream && 'streams' in destination && destination.streams) return writeStream(destination.response, destination.streams, answer as Sendable & { stream: AnswerStream }, method);
  const headers: Record<string, string | string[]> = { ...answer.finalHeaders, 'content-length': String(Buffer.byteLength(answer.body)) };
  if (answer.setCookies?.length) headers['set-cookie'] = answer.setCookies.map(headerValue);
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

/** The answer with every header it sends, each value escaped as header-value.ts says. */
function sendable(answer: Answer): Sendable {
  const finalHeaders: Record<string, string> = Object.create(null); // `__proto__` is a name an upstream may send
  for (const [name, value] of Object.entries(answer.finalHeaders ?? answer.headers)) finalHeaders[name] = headerValue(String(value));
  return { ...answer, finalHeaders };
}

/** Why an answer cannot be written as it is, if it cannot: what escaping cannot mend. */
function problemOf(answer: Sendable): string | undefined {
  if (!Number.isInteger(answer.status) || answer.status < 100 || answer.status > 599) return `its status ${String(answer.status)} is not an HTTP status`;
  for (const name of Object.keys(answer.finalHeaders)) {
    try {
      validateHeaderName(name);
    } catch {
      return `its header name ${JSON.stringify(name)} is not a token`;
    }
  }
  return undefined;
}

/** The 500 sent in place of an answer that cannot be written, under its request id. */
function unwritableAnswer(answer: Sendable, problem: string): Answer {
  const id = answer.finalHeaders['x-request-id'];
  const requestId = id !== undefined && validRequestId.test(id) ? id : 'unknown';
  const replacement = errorAnswer(500, { code: 'E_INTERNAL', message: `The answer could not be written: ${problem}.`, requestId });
  replacement.finalHeaders = { ...replacement.headers, 'x-request-id': requestId };
  return replacement;
}

function reasonOf(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}
