/**
 * The request journal as the store keeps it: every request the API answered, newest last, within a budget of bytes
 * (its entries' JSON), the oldest entries going first; read a page at a time, newest first, filtered by operation,
 * status and partner, and never examining more than ten pages' worth of entries for one page, so that a read costs
 * a page however large the journal or however rare the matches.
 */
import { key, numberPart, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import type { JournalNote } from '../pipeline/exchange.ts';
import type { CapturedMessage, CapturedRequest } from './captured-message.ts';

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
  /** The documented answer the request asked for (`Prefer`), when it was forced. */
  forced?: { status: number; example: string };
  errorCode: string | null;
  contractViolations?: string[];
  /** How the request broke the contract, when a proxy forwarded it anyway. */
  requestViolations?: string[];
  /** When the mock is a proxy: what the upstream did with the request. */
  upstream?: { url: string; outcome: 'answered' | 'unreachable' | 'timeout'; status?: number; durationMs: number };
  /** An event the webhook relay received: its verdict (bounded by the relay). */
  webhook?: JournalNote['webhook'];
  /** What was sent and answered (captured-message.ts); absent from entries journaled before the mock kept them. */
  request?: CapturedRequest;
  /** Null when nothing was answered (the client left first). */
  response?: CapturedMessage | null;
}

export interface JournalQuery {
  /** Entries to return at most. */
  limit: number;
  /** Only entries older than this position (the `next` of the previous page). */
  before?: number;
  operationId?: string;
  status?: number;
  errorCode?: string;
  partnerId?: string;
}

export interface JournalPage {
  /** Oldest first, each with its position. */
  entries: (RequestRecord & { id: number })[];
  /** Where the next (older) page starts; absent when this page reached the oldest entry. */
  next?: number;
  /** The newest position examined, matching or not; absent when none was. */
  newest?: number;
}

/**
 * A run of consecutive requests, appended together, stored as one entry under the position of its first: the
 * journal is written at every request, and one store write per batch costs a fraction of one per request. A
 * request's position is its chunk's plus its index in it. A chunk is the UTF-8 JSON of its records, an array in
 * which `null` stands where a partner's reset removed one (the others keep their positions), stored as bytes: each
 * record is turned into JSON once, and the chunk's size is its length.
 */
type Chunk = (RequestRecord | null)[];

/** First position → chunk, oldest first. No index beside: the journal is read a page at a time. */
const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
const totals = table<number>('journal_totals');
const bytesKey = 'chunk_bytes';
/** Chunks dropped per round while the journal is over its budget. */
const dropSlice = 64;
/**
 * Past its budget, the journal drops its oldest chunks until it is this share of the budget below it, so that it
 * drops a few chunks every few appends rather than one at each.
 */
const dropMargin = 1 / 64;
/** A chunk holds at most this share of the budget, so that dropping one loses little (and always one request at least). */
const chunkShare = 1 / 32;

export function appendRequests(tx: Tx, records: readonly RequestRecord[], maxBytes: number): void {
  if (records.length === 0) return;
  const made = chunksOf(records, Math.floor(maxBytes * chunkShare));
  const addedBytes = made.reduce((sum, chunk) => sum + chunk.bytes.byteLength, 0);
  const total = (tx.get(totals, bytesKey, { snapshot: true, recent: true }) ?? 0) + addedBytes;
  // The oldest go first, before the new ones are written: the scan then has no pending write to merge.
  const dropped = total > maxBytes ? dropOldest(tx, total - Math.floor(maxBytes * (1 - dropMargin))) : 0;
  let position = tx.allocate('journal', records.length);
  for (const chunk of made) {
    tx.put(chunks, key(position), chunk.bytes);
    position += chunk.count;
  }
  // A batch larger than the whole budget (only with the smallest budgets): its own oldest chunks go too.
  const over = total - dropped - maxBytes;
  tx.add(totals, bytesKey, addedBytes - dropped - (over > 0 ? dropOldest(tx, over) : 0));
}

/** The records in order, cut into chunks of at most `maxChunkBytes` (one record at least), encoded. */
function chunksOf(records: readonly RequestRecord[], maxChunkBytes: number): { bytes: Uint8Array; count: number }[] {
  const made: { bytes: Uint8Array; count: number }[] = [];
  let texts: string[] = [];
  let size = 2;
  const close = () => made.push({ bytes: Buffer.from(`[${texts.join(',')}]`), count: texts.length });
  for (const record of records) {
    const text = JSON.stringify(record);
    // Its bytes and a comma.
    const bytes = Buffer.byteLength(text) + 1;
    if (texts.length > 0 && size + bytes > maxChunkBytes) {
      close();
      texts = [];
      size = 2;
    }
    texts.push(text);
    size += bytes;
  }
  close();
  return made;
}

const decoder = new TextDecoder();
/**
 * A chunk's records; none for a chunk that is not the JSON this module writes (bytes damaged on disk): the journal
 * is for reading what happened, and one unreadable batch must not hide the others. It goes with its budget.
 */
function recordsOf(chunk: Uint8Array): Chunk {
  try {
    const records: unknown = JSON.parse(decoder.decode(chunk));
    return Array.isArray(records) ? (records as Chunk) : [];
  } catch {
    return [];
  }
}
const encode = (records: Chunk): Uint8Array => Buffer.from(JSON.stringify(records));

/** Drops the oldest chunks until at least `bytes` are freed, or none is left; the bytes freed. */
function dropOldest(tx: Tx, bytes: number): number {
  let freed = 0;
  while (freed < bytes) {
    // Not a snapshot: two processes dropping the same chunks retry rather than count them twice.
    const oldest = tx.scan(chunks, within([], { limit: dropSlice }));
    for (let i = 0; i < oldest.length && freed < bytes; i += 1) {
      const { key: chunkKey, value } = oldest[i] as { key: string; value: Uint8Array };
      tx.delete(chunks, chunkKey);
      freed += value.byteLength;
    }
    if (oldest.length < dropSlice) break;
  }
  return freed;
}

/** Chunks read per scan while a page is gathered, newest first. */
const chunksPerRead = 8;

export function journalPage(tx: Tx, { limit, before, ...filters }: JournalQuery): JournalPage {
  const examinable = Math.max(1, limit) * 10;
  const found: JournalPage['entries'] = [];
  let examined = 0;
  let lastExamined: number | undefined;
  let newest: number | undefined;
  let more = false;
  // Newest chunk first; the one holding `before` starts before it, so the scan goes to just after `before`.
  let high = before;
  scanning: for (;;) {
    const read = tx.scan(chunks, within([], { ...(high === undefined ? {} : { before: [high] }), reverse: true, limit: chunksPerRead }), { snapshot: true });
    for (const { key: chunkKey, value } of read as readonly { key: string; value: Uint8Array }[]) {
      const first = numberPart(chunkKey, 0);
      const records = recordsOf(value);
      for (let index = records.length - 1; index >= 0; index -= 1) {
        const position = first + index;
        if (before !== undefined && position >= before) continue;
        if (examined >= examinable || found.length >= limit) {
          more = true;
          break scanning;
        }
        const record = records[index];
        if (!record) continue;
        examined += 1;
        newest ??= position;
        lastExamined = position;
        if (matchesFilters(record, filters)) found.push({ ...record, id: position });
      }
      high = first;
    }
    if (read.length < chunksPerRead) break;
  }
  return { entries: found.reverse(), ...(more && lastExamined !== undefined ? { next: lastExamined } : {}), ...(newest === undefined ? {} : { newest }) };
}

/** The request journaled at `position`, with its position; undefined when the journal no longer holds it. */
export function journalEntry(tx: Tx, position: number): (RequestRecord & { id: number }) | undefined {
  if (!Number.isSafeInteger(position) || position < 0) return undefined;
  // The chunk that holds it is the last one starting at or before it.
  const [found] = tx.scan(chunks, within([], { before: [position + 1], reverse: true, limit: 1 }), { snapshot: true });
  if (!found) return undefined;
  const record = recordsOf(found.value as Uint8Array)[position - numberPart(found.key, 0)];
  return record ? { ...record, id: position } : undefined;
}

type JournalFilters = Omit<JournalQuery, 'limit' | 'before'>;

/** Whether a request is one the filters ask for. */
export function matchesFilters(record: Pick<RequestRecord, 'operationId' | 'status' | 'errorCode' | 'partnerId'>, { operationId, status, errorCode, partnerId }: JournalFilters): boolean {
  return (
    (operationId === undefined || record.operationId === operationId) &&
    (status === undefined || record.status === status) &&
    (errorCode === undefined || record.errorCode === errorCode) &&
    (partnerId === undefined || record.partnerId === partnerId)
  );
}

/**
 * The requests after position `after` that match, oldest first, at most `limit` (a stream catching up): read
 * forward from the chunk that holds `after + 1`, examining at most ten times `limit` entries. `last` is the newest
 * position examined (or `after`), to go on from; `more` says that entries past it may match.
 */
export function journalSince(tx: Tx, after: number, limit: number, filters: JournalFilters): { entries: (RequestRecord & { id: number })[]; last: number; more: boolean } {
  const examinable = Math.max(1, limit) * 10;
  const found: (RequestRecord & { id: number })[] = [];
  let examined = 0;
  let last = after;
  // The chunk holding `after + 1` is the last one starting at or before it (or the oldest, when none does).
  const [holding] = tx.scan(chunks, within([], { before: [after + 2], reverse: true, limit: 1 }), { snapshot: true });
  const start = holding === undefined ? 0 : numberPart(holding.key, 0);
  // Chunks are read after this chunk key: just before the first wanted, then the last read.
  let previous: number | undefined = start > 0 ? start - 1 : undefined;
  for (;;) {
    const read = tx.scan(chunks, within([], { ...(previous === undefined ? {} : { after: [previous] }), limit: chunksPerRead }), { snapshot: true });
    for (const { key: chunkKey, value } of read as readonly { key: string; value: Uint8Array }[]) {
      const first = numberPart(chunkKey, 0);
      const records = recordsOf(value);
      for (let index = 0; index < records.length; index += 1) {
        const position = first + index;
        if (position <= after) continue;
        if (examined >= examinable || found.length >= limit) return { entries: found, last, more: true };
        const record = records[index];
        if (!record) continue;
        examined += 1;
        last = position;
        if (matchesFilters(record, filters)) found.push({ ...record, id: position });
      }
      previous = first;
    }
    if (read.length < chunksPerRead) return { entries: found, last, more: false };
  }
}

/**
 * Forgets the partner's requests among up to `limit` chunks after position `after` (a partner's reset, which walks
 * the whole journal: it is bounded by its budget); the position to go on from, or undefined at the end.
 */
export function forgetRequests(tx: Tx, partnerId: string, limit: number, after?: number): number | undefined {
  const examined = tx.scan(chunks, within([], { ...(after === undefined ? {} : { after: [after] }), limit }));
  let freed = 0;
  for (const { key: chunkKey, value } of examined) {
    const before = recordsOf(value);
    if (!before.some((record) => record?.partnerId === partnerId)) continue;
    // The partner's requests become holes, so that the others keep their positions (a cursor holds one).
    const records = before.map((record) => (record?.partnerId === partnerId ? null : record));
    if (records.every((record) => record === null)) {
      tx.delete(chunks, chunkKey);
      freed += value.byteLength;
    } else {
      const bytes = encode(records);
      tx.put(chunks, chunkKey, bytes);
      freed += value.byteLength - bytes.byteLength;
    }
  }
  tx.add(totals, bytesKey, -freed);
  return examined.length < limit ? undefined : numberPart((examined.at(-1) as { key: string }).key, 0);
}
