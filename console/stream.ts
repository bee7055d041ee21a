/**
 * The journal live: `GET /_mock/requests/stream` read with `fetch` (an `EventSource` cannot send the partner's key
 * or the admin token), its events parsed by eventsource-parser, reconnecting after a drop with `Last-Event-ID`
 * so that nothing answered meanwhile is missed.
 */
import { createParser } from 'eventsource-parser';
import type { JournalEntry } from './api.ts';
import { adminTokenHeader } from './api.ts';

export interface StreamHandlers {
  onEntry(entry: JournalEntry): void;
  onState(state: 'live' | 'reconnecting'): void;
}

/** Follows the stream until `signal` aborts. */
export function followJournal(options: { key: string; token: string; signal: AbortSignal; filters: Record<string, string | number> } & StreamHandlers): void {
  const query = new URLSearchParams(Object.entries(options.filters).map(([name, value]) => [name, String(value)])).toString();
  let lastId: string | undefined;
  let retryMs = 2000;
  const connect = async (): Promise<void> => {
    const headers: Record<string, string> = {};
    if (options.key) headers.authorization = options.key;
    if (options.token) headers[adminTokenHeader] = options.token;
    if (lastId) headers['last-event-id'] = lastId;
    const response = await fetch(`/_mock/requests/stream${query ? `?${query}` : ''}`, { headers, signal: options.signal });
    if (!response.ok || !response.body) throw new Error(`the stream answered ${response.status}`);
    options.onState('live');
    const parser = createParser({
      onEvent(event) {
        if (event.id) lastId = event.id;
        if (event.event === 'request') options.onEntry(JSON.parse(event.data) as JournalEntry);
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
