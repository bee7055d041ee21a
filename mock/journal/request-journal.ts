/**
 * The request journal: every request the API pipeline answered, kept in the store within a byte budget and read a
 * page at a time (`GET /_mock/requests`). Each entry is turned into its JSON's bytes as it is added, and entries
 * are written in batches, off the request's path; a read writes what is waiting first, so a client always finds its
 * own requests. Values a caller controls are cut to a bounded length, so that no request can make an entry large.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import { cut, type CapturedMessage, type CapturedRequest } from './captured-message.ts';
import { appendRequests } from './journal-budget.ts';
import { encodeRequest, journalEntry, journalPage, journalSince, type EncodedRequest, type JournalQuery, type RequestRecord } from './journal-records.ts';

/**
 * A journal entry as `/_mock/requests` lists it: the time formatted, the partner only as its masked key, what was
 * sent and answered left out (`JournalExchange` has them), and its position in the journal (never shown as it is:
 * positions count every partner's requests).
 */
export type JournalEntry = Omit<RequestRecord, 'atMs' | 'partnerId' | 'request' | 'response'> & { at: string; position: number };

/** An entry as the feed hands it out: with its partner, to filter by (never shown). */
export type FeedEntry = JournalEntry & { partnerId?: string };

/** One entry whole, with what was sent and answered. */
export type JournalExchange = JournalEntry & { partnerId?: string; request: CapturedRequest | null; response: CapturedMessage | null };

export interface JournalPageView {
  requests: JournalEntry[];
  /** The position to pass as `before` for the page of older entries; null when there is none. */
  next: number | null;
  /** The newest position the read examined, matching or not; null when it examined none. */
  newest: number | null;
}

export type JournalFilters = Omit<JournalQuery, 'limit' | 'before'>;

export interface RequestJournal {
  add(record: RequestRecord): void;
  page(query: JournalQuery): Promise<JournalPageView>;
  /** The entry at a position, whole; undefined once it has left the journal. */
  entry(position: number): Promise<JournalExchange | undefined>;
  /**
   * The entries after `position` that match, oldest first, at most `limit`; the newest position examined (to go on
   * from: `position` when none was), and whether entries past it may match (`more`: go on at once).
   */
  since(position: number, filters: JournalFilters, limit: number): Promise<{ entries: FeedEntry[]; last: number; more: boolean }>;
  /** The same, each entry whole as it was recorded (with what was sent and answered): an export reads the journal so. */
  wholeSince(position: number, filters: JournalFilters, limit: number): Promise<{ entries: RequestRecord[]; last: number; more: boolean }>;
  /** The position of the newest entry (-1 when the journal is empty). */
  newest(): Promise<number>;
  /** Called after each write of entries by this process. Returns the function that stops it. */
  onWrite(listener: () => void): () => void;
  /** Writes what is waiting. */
  flush(): Promise<void>;
}

export const maxJournalPathLength = 512;
const maxRequestIdLength = 200;
const maxViolations = 20;
const maxViolationLength = 1000;
/**
 * Entries are written together, at most this many, at most this long after the first of them waited: a write costs
 * the store a commit, and at a few thousand requests a second one every 100 ms is a fifth of one every 20 ms. A
 * follower of the feed sees a request within this delay; a reader of the journal at once (a read writes what is
 * waiting first). What waits is lost if the process is killed: at most this delay's requests, never an answer.
 */
const batchSize = 1024;
const batchDelayMs = 100;

export function createRequestJournal(options: { store: Store; maxBytes: number; logger: Logger }): RequestJournal {
  const { store, maxBytes, logger } = options;
  let waiting: EncodedRequest[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const listeners = new Set<() => void>();
  const page = async (query: JournalQuery): Promise<JournalPageView> => {
    await flush();
    const found = await store.read((tx) => journalPage(tx, query));
    return { requests: found.entries.map(entryOf), next: found.next ?? null, newest: found.newest ?? null };
  };

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      writing = writing
        .then(() => store.write((tx) => appendRequests(tx, batch, maxBytes)))
        .then(() => {
          for (const listener of listeners) listener();
        })
        .catch((error: unknown) => logger.error({ err: error, entries: batch.length }, 'request journal entries lost: the store refused them'));
    }
    return writing;
  };

  return {
    add(record) {
      waiting.push(encodeRequest(bounded(record)));
      if (waiting.length >= batchSize) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), batchDelayMs);
        timer.unref();
      }
    },
    page,
    async entry(position) {
      await flush();
      const found = await store.read((tx) => journalEntry(tx, position));
      if (!found) return undefined;
      const { request, response, partnerId } = found;
      return { ...entryOf(found), ...(partnerId === undefined ? {} : { partnerId }), request: request ?? null, response: response ?? null };
    },
    async since(position, filters, limit) {
      await flush();
      const found = await store.read((tx) => journalSince(tx, position, limit, filters));
      return { entries: found.entries.map((record) => ({ ...entryOf(record), ...(record.partnerId === undefined ? {} : { partnerId: record.partnerId }) })), last: found.last, more: found.more };
    },
    async wholeSince(position, filters, limit) {
      await flush();
      return store.read((tx) => journalSince(tx, position, limit, filters));
    },
    async newest() {
      const found = await page({ limit: 1 });
      return found.newest ?? -1;
    },
    onWrite(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush,
  };
}

function entryOf({ id, atMs, partnerId: _partnerId, request: _request, response: _response, ...entry }: RequestRecord & { id: number }): JournalEntry {
  return { at: new Date(atMs).toISOString(), ...entry, position: id };
}

function bounded(record: RequestRecord): RequestRecord {
  if (record.path.length <= maxJournalPathLength && record.requestId.length <= maxRequestIdLength && record.contractViolations === undefined && record.requestViolations === undefined) return record;
  return {
    ...record,
    path: cut(record.path, maxJournalPathLength),
    requestId: cut(record.requestId, maxRequestIdLength),
    ...(record.contractViolations === undefined ? {} : { contractViolations: boundedViolations(record.contractViolations) }),
    ...(record.requestViolations === undefined ? {} : { requestViolations: boundedViolations(record.requestViolations) }),
  };
}

/** At most `maxViolations`, each cut, and one saying how many more there were. */
export function boundedViolations(violations: readonly string[]): string[] {
  return [
    ...violations.slice(0, maxViolations).map((violation) => cut(violation, maxViolationLength)),
    ...(violations.length > maxViolations ? [`… and ${violations.length - maxViolations} more`] : []),
  ];
}
