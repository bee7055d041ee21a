/**
 * The request journal as the store keeps it: every request the API answered, newest last, within a budget of bytes
 * (its entries' JSON); read a page at a time, newest first, filtered by operation, status and partner, and never
 * examining more than ten pages' worth of entries for one page, so that a read costs a page however large the
 * journal or however rare the matches.
 *
 * Past its budget the journal makes room fairly: the oldest requests go of the partner that holds the most bytes
 * (requests without a valid key count as one partner), so one partner's traffic never pushes another's requests
 * out while it holds more than they do. Each partner's bytes are counted, and the chunks holding its requests are
 * indexed, so that making room reads only that partner's oldest chunks.
 */
import { maskCredentials } from '../../contract-model/credentials.ts';
import { key, numberPart, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import type { JournalNote } from '../pipeline/exchange.ts';
import type { CapturedMessage, CapturedRequest } from './captured-message.ts';
import { chunkJson, chunkJsonLength, packChunk } from './chunk-bytes.ts';

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
 * which `null` stands where a partner's reset removed one (the others keep their positions), stored as bytes (and
 * compressed when large: chunk-bytes.ts): each record is turned into JSON once, and the chunk's size, which the
 * budget counts, is the length of its JSON.
 */
type Chunk = (RequestRecord | null)[];

/** First position → chunk, oldest first. Read a page at a time. */
const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
const totals = table<number>('journal_totals');
const bytesKey = 'chunk_bytes';
/**
 * Scope (a partner's id, `''` for requests without a valid key), first position → 1 when the chunk holds that
 * scope's requests only (it goes whole), 0 when it holds others' too (it is rewritten without them).
 */
const scopeChunks = table<number>('journal_scope_chunks', { ordered: true });
/** Scope → the bytes of its requests. */
const scopeBytes = table<number>('journal_scope_bytes', { ordered: true });
const scopeOf = (record: Pick<RequestRecord, 'partnerId'>) => record.partnerId ?? '';
/** Chunks read per round while room is made. */
const dropSlice = 16;
/**
 * Past its budget, the journal drops its oldest chunks until it is this share of the budget below it, so that it
 * drops a few chunks every few appends rather than one at each.
 */
const dropMargin = 1 / 64;
/** A chunk holds at most this share of the budget, so that dropping one loses little (and always one request at least). */
const chunkShare = 1 / 32;

/**
 * A request as the journal writes it: its JSON's UTF-8 bytes, made once when it is journaled (so that the cost is
 * the request's own, not a batch's all at once, which held up every request waiting behind the write), and the
 * scope whose budget it counts against.
 */
export interface EncodedRequest {
  bytes: Buffer;
  scope: string;
}

/** Every key and secret anywhere in the entry is masked here, once, whichever of its fields holds it. */
export function encodeRequest(record: RequestRecord): EncodedRequest {
  return { bytes: Buffer.from(maskCredentials(JSON.stringify(record))), scope: scopeOf(record) };
}

export function appendRequests(tx: Tx, records: readonly EncodedRequest[], maxBytes: number): void {
  if (records.length === 0) return;
  const made = chunksOf(records, Math.floor(maxBytes * chunkShare));
  const addedBytes = made.reduce((sum, chunk) => sum + chunk.jsonBytes, 0);
  let position = tx.allocate('journal', records.length);
  for (const chunk of made) {
    tx.put(chunks, key(position), chunk.bytes);
    for (const [scope, bytes] of chunk.scopes) {
      tx.put(scopeChunks, key(scope, position), chunk.scopes.size === 1 ? 1 : 0);
      tx.add(scopeBytes, scope, bytes);
    }
    position += chunk.count;
  }
  const total = (tx.get(totals, bytesKey, { snapshot: true, recent: true }) ?? 0) + addedBytes;
  const freed = total > maxBytes ? makeRoom(tx, total - Math.floor(maxBytes * (1 - dropMargin))) : 0;
  tx.add(totals, bytesKey, addedBytes - freed);
}

interface MadeChunk {
  /** As stored (chunk-bytes.ts). */
  bytes: Uint8Array;
  /** The length of its JSON, which the budget counts. */
  jsonBytes: number;
  count: number;
  /** The bytes of each scope's requests in it. */
  scopes: Map<string, number>;
}

/**
 * The records in order, cut into chunks of at most `maxChunkBytes` (one record at least), stored as chunk-bytes.ts
 * says. The records' bytes are copied together: joining their JSON as strings first cost three times as much once
 * a record held a character beyond Latin-1 (the masked key's `…`), the join then making one large two-byte string.
 */
function chunksOf(records: readonly EncodedRequest[], maxChunkBytes: number): MadeChunk[] {
  const made: MadeChunk[] = [];
  let parts: Buffer[] = [];
  let scopes = new Map<string, number>();
  let size = 2;
  const close = () => made.push({ bytes: packChunk(joined(parts, size - 1)), jsonBytes: size - 1, count: parts.length, scopes });
  for (const { bytes: part, scope } of records) {
    // Its bytes and a comma.
    const bytes = part.byteLength + 1;
    if (parts.length > 0 && size + bytes > maxChunkBytes) {
      close();
      parts = [];
      scopes = new Map();
      size = 2;
    }
    parts.push(part);
    scopes.set(scope, (scopes.get(scope) ?? 0) + bytes);
    size += bytes;
  }
  close();
  return made;
}

/** `[`, the parts separated by commas, `]`: `length` bytes. */
function joined(parts: readonly Buffer[], length: number): Uint8Array {
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  bytes[at++] = 0x5b;
  parts.forEach((part, index) => {
    if (index > 0) bytes[at++] = 0x2c;
    at += part.copy(bytes, at);
  });
  bytes[at] = 0x5d;
  return bytes;
}

const decoder = new TextDecoder();
/**
 * A chunk's records; none for a chunk that is not the JSON this module writes (bytes damaged on disk): the journal
 * is for reading what happened, and one unreadable batch must not hide the others. It goes with its budget.
 */
function recordsOf(chunk: Uint8Array): Chunk {
  try {
    const records: unknown = JSON.parse(decoder.decode(chunkJson(chunk)));
    return Array.isArray(records) ? (records as Chunk) : [];
  } catch {
    return [];
  }
}

/**
 * Frees at least `bytes` (or all there is), the oldest requests of the scope holding the most first, until it holds
 * no more than the next; the bytes of chunks freed. Not snapshots: two processes making room at once retry rather
 * than count the same requests twice.
 *
 * The scopes are read and ordered once a round, and what each of the largest gives is worked out from that order
 * (levelled, largest first): a round per chunk freed, each reading every scope, cost a request in proportion to
 * the number of keys ever seen (one partner using thousands of keys made every request milliseconds slower).
 */
function makeRoom(tx: Tx, bytes: number): number {
  let freed = 0;
  while (freed < bytes) {
    const held = tx.scan(scopeBytes, within([], { limit: Number.MAX_SAFE_INTEGER })).filter((entry) => entry.value > 0);
    if (held.length === 0) break;
    held.sort((a, b) => b.value - a.value);
    const shares = levelled(held.map((entry) => entry.value), bytes - freed);
    for (let i = 0; i < shares.length && freed < bytes; i += 1) {
      const scope = (held[i] as { key: string }).key;
      const got = forgetOldest(tx, scope, Math.min(shares[i] as number, bytes - freed));
      // Counted but holding no chunk (its requests went another way): nothing more to take from it.
      if (got === 0) tx.delete(scopeBytes, scope);
      freed += got;
    }
  }
  return freed;
}

/**
 * What each of the largest scopes (`held`, largest first) gives so that together they free `bytes`: the largest
 * brought down to the next, then both to the one after, and so on (at least a byte each, so that a scope among
 * equals gives a request).
 */
function levelled(held: readonly number[], bytes: number): number[] {
  let sum = 0;
  for (let count = 1; count <= held.length; count += 1) {
    sum += held[count - 1] as number;
    const next = held[count] ?? 0;
    if (sum - count * next >= bytes || count === held.length) {
      const level = Math.max(next, (sum - bytes) / count);
      return held.slice(0, count).map((value) => Math.max(1, Math.ceil(value - level)));
    }
  }
  return [];
}

/**
 * Forgets the scope's oldest requests, a chunk at a time, until `bytes` are freed or none is left; the bytes freed.
 * A scope left with no request loses its count too, so that the scopes read while making room are those the
 * journal holds, not every key ever seen.
 */
function forgetOldest(tx: Tx, scope: string, bytes: number): number {
  let freed = 0;
  while (freed < bytes) {
    const oldest = tx.scan(scopeChunks, within([scope], { limit: dropSlice }));
    let i = 0;
    for (; i < oldest.length && freed < bytes; i += 1) {
      const entry = oldest[i] as { key: string; value: number };
      freed += forgetIn(tx, numberPart(entry.key, 1), scope, entry.value === 1);
    }
    if (oldest.length < dropSlice) {
      if (i === oldest.length) tx.delete(scopeBytes, scope);
      break;
    }
  }
  return freed;
}

/**
 * Forgets the scope's requests in the chunk at `position`: the whole chunk when it is the scope's alone, or its
 * requests made holes (the others keep their positions: a cursor holds one); the bytes freed.
 */
function forgetIn(tx: Tx, position: number, scope: string, alone: boolean): number {
  tx.delete(scopeChunks, key(scope, position));
  const value = tx.get(chunks, key(position));
  if (value === undefined) return 0;
  const before = alone ? [] : recordsOf(value);
  const records = before.map((record) => (record !== null && scopeOf(record) === scope ? null : record));
  let scopeFreed = 0;
  before.forEach((record, index) => {
    // As counted when it was added: its JSON and a comma (a chunk's bytes are theirs, less one, and the brackets).
    if (record !== null && records[index] === null) scopeFreed += Buffer.byteLength(JSON.stringify(record)) + 1;
  });
  const jsonBytes = chunkJsonLength(value);
  if (records.every((record) => record === null)) {
    tx.delete(chunks, key(position));
    tx.add(scopeBytes, scope, -(alone ? jsonBytes - 1 : scopeFreed));
    return jsonBytes;
  }
  const json = Buffer.from(JSON.stringify(records));
  tx.put(chunks, key(position), packChunk(json));
  tx.add(scopeBytes, scope, -scopeFreed);
  return jsonBytes - json.byteLength;
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
 * Forgets up to `limit` chunks' worth of the partner's requests (a partner's reset); true once none is left.
 */
export function forgetRequests(tx: Tx, partnerId: string, limit: number): boolean {
  const held = tx.scan(scopeChunks, within([partnerId], { limit }));
  let freed = 0;
  for (const entry of held) freed += forgetIn(tx, numberPart(entry.key, 1), partnerId, entry.value === 1);
  tx.add(totals, bytesKey, -freed);
  if (held.length < limit) tx.delete(scopeBytes, partnerId);
  return held.length < limit;
}
