/**
 * A server-sent event stream read as a client reads it: opened with fetch (which can send a key), its events
 * parsed as they come, waited for by count.
 */

export interface StreamEvent {
  id?: string;
  event?: string;
  data: string;
  /** When it arrived (`Date.now()`). */
  at: number;
}

export type EventStreamReader = Awaited<ReturnType<typeof readEventStream>>;

/** Opens the stream at `url` and reads its events as they come. */
export async function readEventStream(url: string, options: { query?: string; headers?: Record<string, string> } = {}) {
  const stop = new AbortController();
  const response = await fetch(`${url}${options.query ?? ''}`, { headers: options.headers ?? {}, signal: stop.signal });
  const events: StreamEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: StreamEvent = { data: '', at: Date.now() };
        for (const line of block.split('\n')) {
          const [field, ...rest] = line.split(': ');
          if (field === 'id' || field === 'event' || field === 'data') event[field] = rest.join(': ');
        }
        if (event.event) events.push(event);
      }
    }
  })();
  return {
    response,
    events,
    /** Waits until `count` events arrived, or fails after five seconds. */
    async waitFor(count: number, timeoutMs = 5_000) {
      for (let waited = 0; events.length < count; waited += 20) {
        if (waited > timeoutMs) throw new Error(`waited for ${count} events, got ${events.length}: ${JSON.stringify(events)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return events;
    },
    ended: reading,
    close: () => stop.abort(),
  };
}
