/**
 * The server-sent event streams one server writes, and their bounds. A stream holds its connection, its buffers and
 * what waits for its client for as long as it is open, and the client decides how long that is and whether it reads
 * at all; so, for every stream the server writes, whatever its route:
 *
 * - at most `maxStreams` are open at once, every partner's together (`--max-streams`): past them a stream is refused
 *   with `503 E_STREAM_LIMIT` and Retry-After, and the refusal logged;
 * - a stream's writer waits while more than `maxUnsentBytes` wait for its client, so that is about what a client
 *   that stops reading holds in the mock (after the system's socket buffers, up to 4 MB on loopback); a stream whose
 *   client takes none of what waits for `sendTimeoutMs` (`--stream-send-timeout`, as nginx's `send_timeout`) is
 *   reset: a client that never reads would otherwise hold it, its buffers and its place for good;
 * - every stream ends after `maxAgeMs` (`--stream-max-age`): a client that reads but never leaves gives its place
 *   back, and reconnects with `Last-Event-ID`, missing nothing;
 * - a stream with nothing waiting sends a comment line every `heartbeatMs`, so that proxies between keep it open.
 *
 * A stream whose client reads nothing on a quiet journal is not caught by the send timeout: what it is sent (a
 * comment line a quarter of a minute) fits the sockets' buffers for days. It costs its connection only, the cap
 * bounds how many there are, and the age limit how long each stays.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { AnswerStream } from './answer.ts';
import { ApiError } from './api-error.ts';

export interface StreamBounds {
  /** Streams open at once, every partner's together. */
  maxStreams: number;
  /** How long a stream's client may take none of what waits for it before the stream is closed. */
  sendTimeoutMs: number;
  /** How long a stream stays open before it is ended (its client reconnects). */
  maxAgeMs: number;
}

/**
 * What a stream may have waiting in the mock before its writer waits for the client: enough that pieces go out back
 * to back to a client that reads (waiting at Node's 16 KiB, a piece at a time, the console took 10 000 entries of a
 * load test in over 30 s, against 22 s), and a bound on what one that does not read holds.
 */
export const maxUnsentBytes = 256 * 1024;
/** How often a stream with nothing waiting sends a comment line, as the admin contract says. */
export const heartbeatMs = 15_000;
/** Seconds a refused client is told to wait: about as long as a console's reconnection (`retry: 2000`) takes. */
const retryAfterSeconds = 5;

export interface EventStreams {
  readonly bounds: StreamBounds;
  /** How many are open now. */
  readonly open: number;
  /** When every place is taken: the refusal of one more stream, logged. Undefined while a place is free. */
  refusal(context: { requestId: string; path: string }): ApiError | undefined;
  /**
   * Writes `stream` to `response`, whose head is out, until its client leaves, a bound ends it or `endAll` does.
   * Synchronous with `refusal`: a stream not refused there takes its place here, before any other request is read.
   */
  run(response: ServerResponse, stream: AnswerStream, context: { requestId: string }): void;
  /** Ends every stream: the server is stopping, and cannot close while one holds its connection. */
  endAll(): void;
  /** Ends the streams of the responses `ours` picks (those a contract being replaced began, so that they reconnect to the new one). */
  endWhere(ours: (response: ServerResponse) => boolean): void;
}

export function createEventStreams(bounds: StreamBounds, logger: Pick<Logger, 'warn' | 'info' | 'debug'>): EventStreams {
  const open = new Map<ServerResponse, AbortController>();
  return {
    bounds,
    get open() {
      return open.size;
    },
    refusal({ requestId, path }) {
      if (open.size < bounds.maxStreams) return undefined;
      logger.warn({ requestId, path, maxStreams: bounds.maxStreams }, 'stream refused: as many streams are open as --max-streams allows');
      // Its connection closed too: a client refused may come back, but holds nothing meanwhile.
      return new ApiError(503, 'E_STREAM_LIMIT', `The mock has ${bounds.maxStreams} streams open, every partner's together, the most it holds at once: retry after Retry-After.`, undefined, { 'retry-after': String(retryAfterSeconds), connection: 'close' });
    },
    run(response, stream, { requestId }) {
      const stop = new AbortController();
      open.set(response, stop);
      const limits = watchStream(response, bounds, {
        stalled: () => logger.info({ requestId, sendTimeoutMs: bounds.sendTimeoutMs, unsentBytes: response.writableLength }, 'stream closed: its client took nothing of what waited for it within --stream-send-timeout'),
        aged: () => {
          logger.debug({ requestId, maxAgeMs: bounds.maxAgeMs }, 'stream ended at --stream-max-age: its client reconnects');
          // The writer stopped first: a write after the end would be an error of the response.
          stop.abort();
          response.end();
        },
      });
      response.once('close', () => {
        open.delete(response);
        limits.clear();
        stop.abort();
      });
      const write = (piece: string): Promise<void> => {
        if (stop.signal.aborted || response.writableEnded) return Promise.resolve();
        response.write(piece);
        limits.written();
        if (response.writableLength <= maxUnsentBytes) return Promise.resolve();
        return new Promise((resolve) => {
          const done = () => {
            response.off('drain', done);
            stop.signal.removeEventListener('abort', done);
            resolve();
          };
          response.on('drain', done);
          stop.signal.addEventListener('abort', done);
        });
      };
      stream.start(write, stop.signal);
    },
    endAll() {
      this.endWhere(() => true);
    },
    endWhere(ours) {
      for (const [response, stop] of open) {
        if (!ours(response)) continue;
        stop.abort();
        if (!response.writableEnded) response.end();
      }
    },
  };
}

/**
 * The timers of one stream: its heartbeat, its age, and, while bytes wait for its client, the send timeout, which
 * starts again whenever the client takes some of them. `written` is told of each write. Cleared when the stream
 * closes.
 */
function watchStream(response: ServerResponse, bounds: StreamBounds, report: { stalled(): void; aged(): void }): { written(): void; clear(): void } {
  // What waits is sent before the end; a client that does not take it meets the send timeout, which runs on.
  const age = setTimeout(report.aged, bounds.maxAgeMs);
  // While bytes wait: when the client last took some, and how much the system had taken for it then.
  let waiting: { timer: NodeJS.Timeout; taken: number; since: number } | undefined;
  const drained = () => {
    clearInterval(waiting?.timer);
    waiting = undefined;
  };
  // The bytes the system took for the client so far: what was written, less what still waits in the mock.
  const taken = () => (response.socket ? response.socket.bytesWritten - response.socket.writableLength : 0);
  const check = () => {
    if (!waiting || response.writableLength === 0) return drained();
    // Some taken: the client reads, however slowly, and more may have been written meanwhile.
    if (taken() > waiting.taken) return void Object.assign(waiting, { taken: taken(), since: Date.now() });
    if (Date.now() - waiting.since < bounds.sendTimeoutMs) return;
    report.stalled();
    // Reset, not closed: a close would leave what the client never took in the system's buffers (megabytes on
    // loopback), to be sent until the system gives up.
    if (response.socket) response.socket.resetAndDestroy();
    else response.destroy();
  };
  const written = () => {
    // Whatever waits, however little: what the system's buffers took first shows its client is not reading. Looked
    // at four times a timeout, so that a stream is reset within a quarter of the timeout after its own.
    if (response.writableLength > 0) waiting ??= { timer: setInterval(check, bounds.sendTimeoutMs / 4), taken: taken(), since: Date.now() };
  };
  const heartbeat = setInterval(() => {
    if (response.writableEnded || response.writableLength > 0) return;
    response.write(': keep-alive\n\n');
    written();
  }, heartbeatMs);
  response.on('drain', drained);
  return {
    written,
    clear() {
      clearInterval(heartbeat);
      clearTimeout(age);
      drained();
      response.off('drain', drained);
    },
  };
}
