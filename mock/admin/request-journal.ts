/** The last requests, newest last, in a fixed-size ring so memory stays bounded however long the mock runs. */
export interface JournalEntry {
  at: string;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  partner: string | null;
  replayed: boolean;
  errorCode: string | null;
  contractViolations?: string[];
}

/** As recorded: the time as epoch milliseconds, formatted only when the journal is read. */
export type RecordedEntry = Omit<JournalEntry, 'at'> & { atMs: number };

export interface RequestJournal {
  add(entry: RecordedEntry): void;
  list(options?: { limit?: number; operationId?: string; status?: number }): JournalEntry[];
}

export function createRequestJournal(capacity = 10_000): RequestJournal {
  const ring: (RecordedEntry | undefined)[] = new Array(capacity);
  let next = 0;
  let count = 0;
  return {
    add(entry) {
      ring[next] = entry;
      next = (next + 1) % capacity;
      count = Math.min(count + 1, capacity);
    },
    list({ limit = 100, operationId, status } = {}) {
      const result: JournalEntry[] = [];
      for (let i = 1; i <= count && result.length < limit; i += 1) {
        const { atMs, ...entry } = ring[(next - i + capacity) % capacity] as RecordedEntry;
        if ((operationId === undefined || entry.operationId === operationId) && (status === undefined || entry.status === status)) {
          result.push({ at: new Date(atMs).toISOString(), ...entry });
        }
      }
      return result.reverse();
    },
  };
}
