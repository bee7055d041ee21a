/**
 * The request journal: every request the API pipeline answered, kept in the store within a byte budget and read a
 * page at a time (`GET /_mock/requests`). Entries are written in small batches, off the request's path; a read
 * writes what is waiting first, so a client always finds its own requests. Values a caller controls are cut to a
 * bounded length, so that no request can make an entry large.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import { appendRequests, journalPage, type JournalQuery, type RequestRecord } from './journal-records.ts';

/** A journal entry as `/_mock/requests` shows it: the time formatted, the partner only as its masked key. */
export type JournalEntry = Omit<RequestRecord, 'atMs' | 'partnerId'> & { at: string };

export interface JournalPageView {
  requests: JournalEntry[];
  /** Pass as `cursor` for the page of older entries; null when there is none. */
  nextCursor: string | null;
}

export interface RequestJournal {
  add(record: RequestRecord): void;
  page(query: JournalQuery): Promise<JournalPageView>;
  /** Writes what is waiting. */
  flush(): Promise<void>;
}

export const maxJournalPathLength = 512;
const maxRequestIdLength = 200;
const maxViolations = 20;
const maxViolationLength = 1000;
const batchSize = 256;
const batchDelayMs = 20;

export function createRequestJournal(options: { store: Store; maxBytes: number; logger: Logger }): RequestJournal {
  const { store, maxBytes, logger } = options;
  let waiting: RequestRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      writing = writing.then(() => store.write((tx) => appendRequests(tx, batch, maxBytes))).catch((error: unknown) => logger.error({ err: error, entries: batch.length }, 'request journal entries lost: the store refused them'));
    }
    return writing;
  };

  return {
    add(record) {
      waiting.push(bounded(record));
      if (waiting.length >= batchSize) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), batchDelayMs);
        timer.unref();
      }
    },
    async page(query) {
      await flush();
      const page = await store.read((tx) => journalPage(tx, query));
      return {
        requests: page.entries.map(({ id: _id, atMs, partnerId: _partnerId, ...entry }) => ({ at: new Date(atMs).toISOString(), ...entry })),
        nextCursor: page.next === undefined ? null : String(page.next),
      };
    },
    flush,
  };
}

function cut(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

function bounded(record: RequestRecord): RequestRecord {
  if (record.path.length <= maxJournalPathLength && record.requestId.length <= maxRequestIdLength && record.contractViolations === undefined) return record;
  const violations = record.contractViolations;
  return {
    ...record,
    path: cut(record.path, maxJournalPathLength),
    requestId: cut(record.requestId, maxRequestIdLength),
    ...(violations === undefined
      ? {}
      : {
          contractViolations: [
            ...violations.slice(0, maxViolations).map((violation) => cut(violation, maxViolationLength)),
            ...(violations.length > maxViolations ? [`… and ${violations.length - maxViolations} more`] : []),
          ],
        }),
  };
}
