/**
 * A server-sent event stream of the admin API followed as long as a view needs it: read with `fetch` (an
 * `EventSource` cannot send the partner's key or the admin token), parsed by eventsource-parser, opened again after
 * a drop once the server's `retry` has passed, with `Last-Event-ID` when its events have ids, so that a stream that
 * resumes misses nothing.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { adminTokenHeader } from '../api.ts';

export type StreamState = 'live' | 'reconnecting';

export interface EventStreamOptions {
  path: string;
  query?: Record<string, string | number>;
  key: string;
  token: string;
  signal: AbortSignal;
  onEvent(event: EventSourceMessage): void;
  /** Each time the stream is open again (`live`), or dropped and waiting to be (`reconnecting`). */
  onState(state: StreamState): void;
}

/** Follows the stream until `signal` aborts. */
export function followEventStream(options: EventStreamOptions): void {
  const query = new URLSearchParams(Object.entries(options.query ?? {}).map(([name, value]) => [name, String(value)])).toString();
  let lastId: string | undefined;
  let retryMs = 2000;
  const connect = async (): Promise<void> => {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = options.key;
    if (options.token) headers[adminTokenHeader] = options.token;
    if (lastId) headers['last-event-id'] = lastId;
    const response = await fetch(`${options.path}${query ? `?${query}` : ''}`, { headers, signal: options.signal });
    if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
    options.onState('live');
    const parser = createParser({
      onEvent(event) {
        if (event.id) lastId = event.id;
        options.onEvent(event);
      },
      onRetry(ms) {
        retryMs = ms;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  };
  const run = async (): Promise<void> => {
    while (!options.signal.aborted) {
      try {
        await connect();
      } catch {
        // Dropped, refused or aborted: tried again below unless aborted.
      }
      if (options.signal.aborted) return;
      options.onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void run();
}
