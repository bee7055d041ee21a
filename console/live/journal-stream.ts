/**
 * The journal live: `GET /_mock/requests/stream`, each entry as it is answered, resumed after a drop from the last
 * entry seen so that nothing answered meanwhile is missed.
 */
import type { JournalEntry } from '../api.ts';
import { followEventStream, type StreamState } from './event-stream.ts';

export interface JournalHandlers {
  onEntry(entry: JournalEntry): void;
  onState(state: StreamState): void;
}

/** Follows the journal until `signal` aborts. */
export function followJournal(options: { key: string; token: string; signal: AbortSignal; filters: Record<string, string | number | boolean> } & JournalHandlers): void {
  const query = Object.fromEntries(Object.entries(options.filters).map(([name, value]) => [name, String(value)]));
  followEventStream({
    path: '/_mock/requests/stream',
    query,
    key: options.key,
    token: options.token,
    signal: options.signal,
    onState: options.onState,
    onEvent(event) {
      if (event.event === 'request') options.onEntry(JSON.parse(event.data) as JournalEntry);
    },
  });
}
