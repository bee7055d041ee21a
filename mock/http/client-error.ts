/**
 * Requests no route sees, or sees cut short, answered as the contract answers everything else.
 *
 * Node refuses some requests before any route: a request line or headers it cannot parse or that are over its
 * 16 KiB limit, a bad or duplicate Content-Length, a Transfer-Encoding other than chunked or beside a Content-Length,
 * broken chunk framing, chunk extensions over 16 KiB, a request not received within the timeouts. It reports them on
 * the server's `clientError` event, where the only way to answer is to write the bytes on the socket itself; with no
 * listener, Node writes a bare status line. Here each gets the API's envelope with an `x-request-id`,
 * `content-type: application/json` and `connection: close`. So do two things Node lets through but the mock must not:
 * two Host headers (or none, in HTTP/1.1: Node's own check answers a bare 400, so it is switched off and made here),
 * and an `Expect` the mock cannot meet (417, Node's `checkExpectation` event).
 *
 * A request whose framing breaks once a route has it (its body's chunks) is answered here too, with the request id
 * its exchange already has, and the refusal is remembered so that the journal records what was sent. What cannot be
 * answered is not: a connection the client reset or closed (`RequestAborted` tells the pipeline, which journals 499),
 * and a request whose answer has already begun (after a 413, say): its connection is only closed.
 */
import { maxHeaderSize, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { ErrorCode } from '../../generated/openapi.js';
import { errorAnswer } from './answer.ts';
import { RequestAborted, type Refusal } from './cut-short.ts';
import { requestIdFor } from './request-id.ts';
import { isClosing, writeAnswer, type Destination } from './write-answer.ts';

export { clientClosedRequest, RequestAborted, type Refusal } from './cut-short.ts';

/**
 * What this module notes on a request or a connection, as properties under symbols of its own rather than in weak
 * maps: a note is made at every request, and a weak map's entry costs more to add and to collect than the property
 * (a weak map is walked apart by the garbage collector), for a note that lives exactly as long as its object.
 */
const refusedNote = Symbol('refusal');
const exchangeNote = Symbol('exchange');
const currentNote = Symbol('current request');

interface Noted {
  /** Answered on its socket after a route had it: the journal records this answer, not the pipeline's. */
  [refusedNote]?: Refusal;
  /** The exchange of a request a pipeline serves, for its request id. */
  [exchangeNote]?: { readonly requestId: string };
}

/** A connection's request, for a refusal that comes once a route has it. */
interface NotedSocket {
  [currentNote]?: { request: IncomingMessage; response: ServerResponse };
}

const noted = (request: IncomingMessage) => request as IncomingMessage & Noted;
const notedSocket = (socket: Duplex) => socket as Duplex & NotedSocket;

export function refusalOf(request: IncomingMessage): Refusal | undefined {
  return noted(request)[refusedNote];
}

/** Called by whatever serves a request through a pipeline, so that a refusal on its socket carries its request id. */
export function noteExchange(request: IncomingMessage, exchange: { readonly requestId: string }): void {
  noted(request)[exchangeNote] = exchange;
}

function requestIdOf(request: IncomingMessage | undefined): string {
  const assigned = request && noted(request)[exchangeNote]?.requestId;
  return assigned || requestIdFor(request?.headers['x-request-id']);
}

const kib = Math.round(maxHeaderSize / 1024);

/** Whether a header's name is Host, in any case, without making a lower-cased copy of every name of every request. */
function isHost(name: string): boolean {
  return name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host');
}

/** What an error Node reports on `clientError` is answered with; `undefined`: nothing can be, or needs to be. */
function refusalFor(error: Error & { code?: string; reason?: unknown }): Refusal | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    // The client closed its side before its request was whole: treated as gone (the pipeline journals 499).
    case 'HPE_INVALID_EOF_STATE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'E_HEADERS_TOO_LARGE', message: `The request line and headers are over ${kib} KiB.` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, code: 'E_PAYLOAD_TOO_LARGE', message: `The body's chunk extensions are over ${kib} KiB.` };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'E_REQUEST_TIMEOUT', message: 'The request was not received in time; send it again, whole and without pauses.' };
    default: {
      // llhttp's reasons are its own fixed phrases ("Invalid character in Content-Length"), never the request's bytes.
      const reason = typeof error.reason === 'string' && error.reason !== '' ? error.reason : 'it cannot be parsed';
      return { status: 400, code: 'E_MALFORMED_REQUEST', message: `The request is not valid HTTP/1.1: ${reason}.` };
    }
  }
}

/** A refusal as answered: the envelope, the request id, and the connection closed after it. */
function sendRefusal(destination: Destination, refusal: Refusal, requestId: string, method: string): void {
  const answer = errorAnswer(refusal.status, { code: refusal.code, message: refusal.message, requestId });
  answer.finalHeaders = { ...answer.headers, 'x-request-id': requestId, connection: 'close' };
  writeAnswer(destination, answer, method);
}

export interface ProtocolGuard {
  /** Wraps the server's request listener: refuses two Host headers, or none in HTTP/1.1, and notes the request in flight. */
  guard(listener: RequestListener): RequestListener;
  /** The server's `clientError` listener. */
  clientError(error: Error, socket: Duplex): void;
  /** The server's `checkExpectation` listener: an `Expect` other than `100-continue`. */
  checkExpectation(request: IncomingMessage, response: ServerResponse): void;
}

export function createProtocolGuard(logger: Pick<Logger, 'info' | 'debug'>): ProtocolGuard {

  const answer = (response: ServerResponse, request: IncomingMessage, refusal: Refusal, reason: string) => {
    const requestId = requestIdOf(request);
    logger.info({ requestId, status: refusal.status, code: refusal.code, reason }, 'request refused before routing');
    sendRefusal({ response }, refusal, requestId, request.method ?? 'GET');
  };

  return {
    guard(listener) {
      return (request, response) => {
        notedSocket(request.socket)[currentNote] = { request, response };
        let hosts = 0;
        for (let index = 0; index < request.rawHeaders.length; index += 2) if (isHost(request.rawHeaders[index] as string)) hosts += 1;
        const needsHost = request.httpVersionMajor > 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1);
        if (hosts > 1 || (hosts === 0 && needsHost)) {
          const message = hosts === 0 ? 'The request has no Host header.' : `The request has ${hosts} Host headers; send one.`;
          answer(response, request, { status: 400, code: 'E_MALFORMED_REQUEST', message }, hosts === 0 ? 'no Host header' : 'several Host headers');
          return;
        }
        listener(request, response);
      };
    },

    clientError(error: Error & { code?: string }, socket) {
      // Node reports again what it cannot parse on a connection already answered and closing: its answer stands.
      if (isClosing(socket)) return;
      const inFlight = notedSocket(socket)[currentNote];
      // A request a route has, whose answer is not written yet; one already answered is another's past.
      const request = inFlight && !inFlight.response.writableEnded ? inFlight : undefined;
      const refusal = refusalFor(error);
      if (!refusal || !socket.writable || request?.response.headersSent) {
        logger.debug({ reason: error.code ?? error.message, ...(request ? { requestId: requestIdOf(request.request) } : {}) }, 'connection closed without an answer');
        socket.destroy();
        return;
      }
      const requestId = requestIdOf(request?.request);
      if (request) noted(request.request)[refusedNote] = refusal;
      logger.info({ requestId, status: refusal.status, code: refusal.code, reason: error.code }, 'request refused before routing');
      sendRefusal({ socket }, refusal, requestId, request?.request.method ?? 'GET');
    },

    checkExpectation(request, response) {
      notedSocket(request.socket)[currentNote] = { request, response };
      answer(response, request, { status: 417, code: 'E_EXPECTATION_FAILED', message: 'The only expectation the API meets is Expect: 100-continue.' }, 'unmet Expect');
    },
  };
}
