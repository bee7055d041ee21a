/**
 * The request journal as the store keeps it: every request the API answered, newest last, in chunks; read a page at
 * a time, newest first, filtered by operation, status and partner, and never examining more than ten pages' worth of
 * entries for one page, so that a read costs a page however large the journal or however rare the matches. How it
 * is kept within its budget of bytes, fairly between partners, is journal-budget.ts.
 */
import { maskCredentials } from '../../contract-model/credentials.ts';
import { key, numberPart, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import type { JournalNote } from '../pipeline/exchange.ts';
import type { CapturedMessage, CapturedRequest } from './captured-message.ts';
import { chunkJson, packChunk } from './chunk-bytes.ts';
import type { components } from '../../generated/mock-admin/openapi.js';

type AdminSchemas = components['schemas'];

/** One request as journaled. */
/** The tools of the mock that mark what they send (the admin contract's `JournalTool`). */
export type JournalTool = AdminSchemas['JournalTool'];

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
  /** The tool of the mock that sent it itself (`X-Mock-Tool`: the console's own calls); absent for the partner's. */
  tool?: JournalTool;
  /** The documented answer the request asked for (`Prefer`), when it was forced. */
  forced?: { status: number; example: string };
  errorCode: string | null;
  contractViolations?: string[];
  /** How the request broke the contract, when a proxy forwarded it anyway. */
  requestViolations?: string[];
  /** When the mock is a proxy: what the upstream did with the request. */
  upstream?: { url: string; outcome: 'answered' | 'unreachable' | 'timeout' | 'too-large' | 'malformed'; status?: number; durationMs: number };
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
  /** Only a tool's requests, or (`none`) only those no tool sent. */
  tool?: JournalTool | 'none';
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
export const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
/** Whose budget a request counts against: its partner's, or for requests without a valid key, theirs together. */
export const scopeOf = (record: Pick<RequestRecord, 'partnerId'>) => record.partnerId ?? '';

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

export interface MadeChunk {
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
export function chunksOf(records: readonly EncodedRequest[], maxChunkBytes: number): MadeChunk[] {
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
export function recordsOf(chunk: Uint8Array): Chunk {
  try {
    const records: unknown = JSON.parse(decoder.decode(chunkJson(chunk)));
    return Array.isArray(records) ? (records as Chunk) : [];
  } catch {
    return [];
  }
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
export function matchesFilters(record: Pick<RequestRecord, 'operationId' | 'status' | 'errorCode' | 'partnerId' | 'tool'>, { operationId, status, errorCode, partnerId, tool }: JournalFilters): boolean {
  return (
    (tool === undefined || (record.tool ?? 'none') === tool) &&
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
