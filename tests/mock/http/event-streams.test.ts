/**
 * The bounds of a stream as http/event-streams.ts keeps them, on a response made up here and a clock moved by hand:
 * when the send timeout closes a stream (nothing taken) and when it does not (some taken, however much more was
 * written meanwhile), when the writer waits, the heartbeat, the age limit and the cap.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnswerStream } from '../../../mock/http/answer.ts';
import { createEventStreams, heartbeatMs, maxUnsentBytes, type StreamBounds } from '../../../mock/http/event-streams.ts';

const bounds: StreamBounds = { maxStreams: 2, sendTimeoutMs: 30_000, maxAgeMs: 3_600_000 };

/** A response whose socket takes what the test says the client took. */
class FakeResponse extends EventEmitter {
  written: string[] = [];
  /** Whether the client takes all that is written, at once. */
  reading = true;
  writableEnded = false;
  reset = false;
  /** Bytes written and not yet taken by the system. */
  unsent = 0;
  /** Bytes written in all. */
  total = 0;
  readonly socket = {
    resetAndDestroy: () => {
      this.reset = true;
      this.emit('close');
    },
    bytesWritten: 0,
    writableLength: 0,
  };
  get writableLength(): number {
    return this.unsent;
  }
  write(piece: string): boolean {
    this.written.push(piece);
    this.total += piece.length;
    if (!this.reading) this.unsent += piece.length;
    this.counted();
    return this.unsent < 16 * 1024;
  }
  /** The client takes `bytes` of what waits; all of it, a drain. */
  take(bytes: number): void {
    this.unsent = Math.max(0, this.unsent - bytes);
    this.counted();
    if (this.unsent === 0) this.emit('drain');
  }
  /** The socket's counts, as Node keeps them: what was written in all, and what still waits. */
  private counted(): void {
    this.socket.bytesWritten = this.total;
    this.socket.writableLength = this.unsent;
  }
  end(): void {
    this.writableEnded = true;
    this.emit('close');
  }
  destroy(): void {
    this.emit('close');
  }
}

const logger = { warn: vi.fn(), info: vi.fn(), debug: vi.fn() };

/** Runs a stream on a fake response; `writes` is what the stream's writer was handed. */
function started(streams = createEventStreams(bounds, logger)) {
  const response = new FakeResponse();
  let write: (piece: string) => Promise<void> = async () => undefined;
  let closed: AbortSignal | undefined;
  const stream: AnswerStream = {
    start(given, signal) {
      write = given;
      closed = signal;
    },
  };
  streams.run(response as unknown as ServerResponse, stream, { requestId: 'req_test' });
  return { streams, response, write: (piece: string) => write(piece), closed: () => closed?.aborted };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.clearAllMocks();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a stream', () => {
  it('is reset once its client takes nothing of what waits for the send timeout', () => {
    const { response, write, closed } = started();
    response.reading = false;
    void write('x'.repeat(1000));
    vi.advanceTimersByTime(bounds.sendTimeoutMs - 1);
    expect(response.reset).toBe(false);
    vi.advanceTimersByTime(1);
    expect(response.reset).toBe(true);
    expect(closed()).toBe(true);
    expect(logger.info).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req_test', unsentBytes: 1000 }), expect.stringContaining('took nothing'));
  });

  it('is not reset while its client takes some, however much more is written meanwhile', () => {
    const { response, write } = started();
    response.reading = false;
    void write('x'.repeat(1000));
    for (let period = 0; period < 5; period += 1) {
      // More written than taken: what waits grows, and the client still reads.
      void write('x'.repeat(5000));
      response.take(10);
      vi.advanceTimersByTime(bounds.sendTimeoutMs);
    }
    expect(response.reset).toBe(false);
    vi.advanceTimersByTime(bounds.sendTimeoutMs);
    expect(response.reset).toBe(true);
  });

  it('is reset within a quarter of the send timeout after the timeout counted from what its client last took', () => {
    const { response, write } = started();
    response.reading = false;
    void write('x'.repeat(1000));
    vi.advanceTimersByTime(1_000);
    response.take(500);
    vi.advanceTimersByTime(bounds.sendTimeoutMs);
    expect(response.reset).toBe(false);
    vi.advanceTimersByTime(bounds.sendTimeoutMs / 4);
    expect(response.reset).toBe(true);
  });

  it('is never reset once its client has taken all that waited, and reads again', () => {
    const { response, write } = started();
    response.reading = false;
    void write('x'.repeat(1000));
    vi.advanceTimersByTime(bounds.sendTimeoutMs - 1);
    response.take(1000);
    response.reading = true;
    vi.advanceTimersByTime(100 * bounds.sendTimeoutMs);
    expect(response.reset).toBe(false);
  });

  it('lets its writer go on while at most maxUnsentBytes wait, then holds it until the client took them', async () => {
    const { response, write } = started();
    response.reading = false;
    let done = false;
    await write('x'.repeat(maxUnsentBytes));
    void write('x').then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    response.take(maxUnsentBytes + 1);
    await Promise.resolve();
    expect(done).toBe(true);
  });

  it('sends a comment line while nothing waits, and none while something does', () => {
    const { response, write } = started();
    vi.advanceTimersByTime(heartbeatMs);
    expect(response.written).toEqual([': keep-alive\n\n']);
    response.reading = false;
    void write('x');
    vi.advanceTimersByTime(heartbeatMs);
    expect(response.written).toEqual([': keep-alive\n\n', 'x']);
  });

  it('ends at its age limit, its writer stopped first', async () => {
    const { response, write, closed } = started();
    vi.advanceTimersByTime(bounds.maxAgeMs);
    expect(response.writableEnded).toBe(true);
    expect(closed()).toBe(true);
    await write('late');
    expect(response.written).not.toContain('late');
  });
});

describe('the streams of a server', () => {
  it('refuse one past maxStreams with 503 E_STREAM_LIMIT, logged, and take one again once a place is free', () => {
    const streams = createEventStreams(bounds, logger);
    const first = started(streams);
    started(streams);
    expect(streams.open).toBe(2);
    const refusal = streams.refusal({ requestId: 'req_third', path: '/_mock/requests/stream' });
    expect(refusal).toMatchObject({ status: 503, code: 'E_STREAM_LIMIT', headers: { 'retry-after': expect.stringMatching(/^\d+$/), connection: 'close' } });
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ requestId: 'req_third', maxStreams: 2 }), expect.any(String));
    first.response.destroy();
    expect(streams.open).toBe(1);
    expect(streams.refusal({ requestId: 'req_fourth', path: '/_mock/requests/stream' })).toBeUndefined();
  });

  it('end all at once, each writer stopped', () => {
    const streams = createEventStreams(bounds, logger);
    const all = [started(streams), started(streams)];
    streams.endAll();
    expect(all.map(({ response, closed }) => [response.writableEnded, closed()])).toEqual([[true, true], [true, true]]);
    expect(streams.open).toBe(0);
  });
});
