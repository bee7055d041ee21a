/**
 * The request journal as the store keeps it: every request the API answered, newest last, within a budget of bytes
 * (its entries' JSON), the oldest entries going first; read a page at a time, newest first, filtered by operation,
 * status and partner, and never examining more than ten pages' worth of entries for one page, so that a read costs
 * a page however large the journal or however rare the matches.
 */
import { key, numberPart, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';

/** One request as journaled. */
export interface RequestRecord {
  atMs: number;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  /** The partner's id, for filtering and resetting; absent for requests without a valid key. */
  partnerId?: string;
  /** The key as shown: masked. */
  partner: string | null;
  replayed: boolean;
  errorCode: string | null;
  contractViolations?: string[];
}

export interface JournalQuery {
  /** Entries to return at most. */
  limit: number;
  /** Only entries older than this position (the `next` of the previous page). */
  before?: number;
  operationId?: string;
  status?: number;
  partnerId?: string;
}

export interface JournalPage {
  /** Oldest first, each with its position. */
  entries: (RequestRecord & { id: number })[];
  /** Where the next (older) page starts; absent when this page reached the oldest entry. */
  next?: number;
}

interface Entry {
  bytes: number;
  record: RequestRecord;
}

/** id → entry, oldest first. No index beside: an entry is written at every request, and read a page at a time. */
const entries = table<Entry>('journal', { ordered: true });
const totals = table<number>('journal_totals');
const bytesKey = 'bytes';
/** Entries dropped per round while the journal is over its budget. */
const dropSlice = 256;

export function appendRequests(tx: Tx, records: readonly RequestRecord[], maxBytes: number): void {
  if (records.length === 0) return;
  let id = tx.allocate('journal', records.length);
  let added = 0;
  for (const record of records) {
    const bytes = Buffer.byteLength(JSON.stringify(record));
    tx.put(entries, key(id), { bytes, record });
    added += bytes;
    id += 1;
  }
  let total = (tx.get(totals, bytesKey, { snapshot: true }) ?? 0) + added;
  // Past the budget, the oldest go; about as many as were added, entries being much alike.
  while (total > maxBytes) {
    // Not a snapshot: two processes dropping the same entries retry rather than count them twice.
    const oldest = tx.scan(entries, within([], { limit: Math.min(dropSlice, records.length + 8) }));
    if (oldest.length === 0) break;
    for (let i = 0; i < oldest.length && total > maxBytes; i += 1) {
      const { key: entryKey, value } = oldest[i] as { key: string; value: Entry };
      tx.delete(entries, entryKey);
      total -= value.bytes;
      added -= value.bytes;
    }
  }
  tx.add(totals, bytesKey, added);
}

export function journalPage(tx: Tx, { limit, before, operationId, status, partnerId }: JournalQuery): JournalPage {
  const examinable = Math.max(1, limit) * 10;
  const examined = tx.scan(entries, within([], { ...(before === undefined ? {} : { before: [before] }), reverse: true, limit: examinable + 1 }), { snapshot: true });
  const found: JournalPage['entries'] = [];
  let index = 0;
  let lastExamined: number | undefined;
  for (; index < examined.length && index < examinable && found.length < limit; index += 1) {
    const { key: entryKey, value } = examined[index] as { key: string; value: Entry };
    lastExamined = numberPart(entryKey, 0);
    const record = value.record;
    if (operationId !== undefined && record.operationId !== operationId) continue;
    if (status !== undefined && record.status !== status) continue;
    if (partnerId !== undefined && record.partnerId !== partnerId) continue;
    found.push({ ...record, id: lastExamined });
  }
  const more = index < examined.length;
  return { entries: found.reverse(), ...(more && lastExamined !== undefined ? { next: lastExamined } : {}) };
}

/**
 * Forgets the partner's entries among up to `limit` entries after position `after` (a partner's reset, which walks
 * the whole journal: it is bounded by its budget); the position to go on from, or undefined at the end.
 */
export function forgetRequests(tx: Tx, partnerId: string, limit: number, after?: number): number | undefined {
  const examined = tx.scan(entries, within([], { ...(after === undefined ? {} : { after: [after] }), limit }));
  let freed = 0;
  for (const entry of examined) {
    if (entry.value.record.partnerId !== partnerId) continue;
    tx.delete(entries, entry.key);
    freed += entry.value.bytes;
  }
  tx.add(totals, bytesKey, -freed);
  return examined.length < limit ? undefined : numberPart((examined.at(-1) as { key: string }).key, 0);
}
