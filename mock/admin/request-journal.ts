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

export interface RequestJournal {
  add(entry: JournalEntry): void;
  list(options?: { limit?: number; operationId?: string; status?: number }): JournalEntry[];
}

export function createRequestJournal(capacity = 10_000): RequestJournal {
  const ring: (JournalEntry | undefined)[] = new Array(capacity);
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
        const entry = ring[(next - i + capacity) % capacity] as JournalEntry;
        if ((operationId === undefined || entry.operationId === operationId) && (status === undefined || entry.status === status)) result.push(entry);
      }
      return result.reverse();
    },
  };
}
