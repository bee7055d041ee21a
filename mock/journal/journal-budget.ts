/**
 * The request journal's byte budget (its entries' JSON), and how it is shared between partners: a scope is a
 * partner, or for the requests without a valid key, all of them together. Appending past the budget makes room
 * fairly:
 *
 * - each scope is guaranteed a share of the budget (`partnerShare`): its newest requests up to it;
 * - what scopes hold beyond their share goes first, the oldest requests of the scope most over it first, until it is
 *   no more over than the next (levelled): one partner's traffic never pushes another's requests out while it holds
 *   more than they do;
 * - only once no scope holds more than its share (more scopes hold requests than the budget has shares: a client
 *   sending from a new key every request) do shares go, the least recently active scope's first, whole: a flood from
 *   fresh keys pushes out its own keys' requests before the newest of a partner still at work, however many keys it
 *   uses. A partner gone quiet is among the least recently active, and goes once the flood has outlasted it.
 *
 * What making room costs stays in proportion to what it frees, however many scopes hold requests: the scopes over
 * their share are indexed (there are at most 1/partnerShare of them), and so are the scopes by their newest chunk;
 * the least recently active go many at once, each chunk they share rewritten once. (Reading every scope's count at
 * each append, and rewriting a shared chunk once per scope leaving it, cost a request half a millisecond once a
 * client sent each request from a new key.)
 */
import { key, numberPart, parts, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import { chunkJsonLength, packChunk } from './chunk-bytes.ts';
import { chunks, chunksOf, recordsOf, scopeOf, type EncodedRequest } from './journal-records.ts';

/**
 * The share of the budget each scope is guaranteed: its newest requests up to it go only once no scope holds more
 * than its own (256 KiB of the default 16 MiB, 100 to 250 requests).
 */
export const partnerShare = 1 / 64;
/**
 * Past its budget, the journal drops its oldest chunks until it is this share of the budget below it, so that it
 * drops a few chunks every few appends rather than one at each.
 */
const dropMargin = 1 / 64;
/** A chunk holds at most this share of the budget, so that dropping one loses little (and always one request at least). */
const chunkShare = 1 / 32;
/** Chunks, or least recent scopes, read per round while room is made. */
const dropSlice = 16;
const leastRecentSlice = 256;

const totals = table<number>('journal_totals');
const bytesKey = 'chunk_bytes';
/** Set once the scopes a journal held before the indexes below existed have been indexed. */
const indexedKey = 'scopes_indexed';
/**
 * Scope, first position → 1 when the chunk holds that scope's requests only (it goes whole), 0 when it holds others'
 * too (it is rewritten without them).
 */
const scopeChunks = table<number>('journal_scope_chunks', { ordered: true });
/** Scope → the bytes of its requests. */
const scopeBytes = table<number>('journal_scope_bytes', { ordered: true });
/** Scope → 1, for every scope holding more than its share (and, until making room reads it, one that no longer does). */
const scopesOver = table<number>('journal_scopes_over', { ordered: true });
/** Scope → the position of the chunk holding its newest request. */
const scopeNewest = table<number>('journal_scope_newest');
/** The position of a scope's newest chunk, scope → 1: the scopes, least recently active first. */
const scopesByRecency = table<number>('journal_scope_recency', { ordered: true });

export function appendRequests(tx: Tx, records: readonly EncodedRequest[], maxBytes: number): void {
  if (records.length === 0) return;
  const share = Math.floor(maxBytes * partnerShare);
  indexScopesOnce(tx, share);
  const made = chunksOf(records, Math.floor(maxBytes * chunkShare));
  const addedBytes = made.reduce((sum, chunk) => sum + chunk.jsonBytes, 0);
  // Room is made before the requests are written: a read of a table the transaction has written looks through what
  // it wrote to it, and the batch's writes would be looked through at every read that makes room.
  const total = (tx.get(totals, bytesKey, { snapshot: true, recent: true }) ?? 0) + addedBytes;
  const needed = total > maxBytes ? total - Math.floor(maxBytes * (1 - dropMargin)) : 0;
  let freed = needed > 0 ? makeRoom(tx, needed, share) : 0;
  let position = tx.allocate('journal', records.length);
  const added = new Map<string, { bytes: number; newest: number }>();
  for (const chunk of made) {
    tx.put(chunks, key(position), chunk.bytes);
    for (const [scope, bytes] of chunk.scopes) {
      tx.put(scopeChunks, key(scope, position), chunk.scopes.size === 1 ? 1 : 0);
      added.set(scope, { bytes: (added.get(scope)?.bytes ?? 0) + bytes, newest: position });
    }
    position += chunk.count;
  }
  for (const [scope, { bytes, newest }] of added) countAdded(tx, scope, bytes, newest, share);
  // A batch larger than what the journal held makes the rest of the room in itself.
  if (freed < needed) freed += makeRoom(tx, needed - freed, share);
  tx.add(totals, bytesKey, addedBytes - freed);
}

/** Counts a scope's requests appended, the newest in the chunk at `newest`. */
function countAdded(tx: Tx, scope: string, bytes: number, newest: number, share: number): void {
  // Read, not only added to: whether it is over its share decides where making room looks.
  const held = tx.get(scopeBytes, scope) ?? 0;
  tx.add(scopeBytes, scope, bytes);
  if (held + bytes > share) tx.put(scopesOver, scope, 1);
  markActive(tx, scope, newest);
}

/** Notes the chunk at `position` as the scope's newest. */
function markActive(tx: Tx, scope: string, position: number): void {
  const before = tx.get(scopeNewest, scope);
  if (before === position) return;
  if (before !== undefined) tx.delete(scopesByRecency, key(before, scope));
  tx.put(scopeNewest, scope, position);
  tx.put(scopesByRecency, key(position, scope), 1);
}

/** A scope left with no request: its count and its places in the indexes go, so that making room reads it no more. */
function forgetScope(tx: Tx, scope: string): void {
  tx.delete(scopeBytes, scope);
  tx.delete(scopesOver, scope);
  const newest = tx.get(scopeNewest, scope);
  if (newest === undefined) return;
  tx.delete(scopeNewest, scope);
  tx.delete(scopesByRecency, key(newest, scope));
}

/**
 * Indexes, once, the scopes of a journal written before the indexes existed (a store kept from an older version of
 * the mock): their newest chunk, and whether they are over their share. A journal that starts empty has none.
 */
function indexScopesOnce(tx: Tx, share: number): void {
  if (tx.get(totals, indexedKey) !== undefined) return;
  for (const { key: scope, value } of tx.scan(scopeBytes, within([], { limit: Number.MAX_SAFE_INTEGER }))) {
    const [newest] = tx.scan(scopeChunks, within([scope], { reverse: true, limit: 1 }));
    if (newest) markActive(tx, scope, numberPart(newest.key, 1));
    if (value > share) tx.put(scopesOver, scope, 1);
  }
  tx.put(totals, indexedKey, 1);
}

/**
 * Frees at least `bytes` (or all there is): what scopes hold beyond their share, then the least recently active
 * scopes' requests. The bytes of chunks freed. Not snapshots: two processes making room at once retry rather than
 * count the same requests twice.
 */
function makeRoom(tx: Tx, bytes: number, share: number): number {
  const freed = levelOver(tx, bytes, share);
  return freed < bytes ? freed + forgetLeastRecent(tx, bytes - freed) : freed;
}

/**
 * Frees up to `bytes` of what scopes hold beyond `share`, the oldest requests of the scope most over it first, until
 * it is no more over than the next, and so on. The scopes over their share are read and ordered once a round, and
 * what each gives is worked out from that order (levelled).
 */
function levelOver(tx: Tx, bytes: number, share: number): number {
  let freed = 0;
  while (freed < bytes) {
    const listed = tx.scan(scopesOver, within([], { limit: Number.MAX_SAFE_INTEGER })).map((entry) => entry.key);
    const held = tx.getMany(scopeBytes, listed).map((value, index) => ({ scope: listed[index] as string, bytes: value ?? 0 }));
    const over = held.filter((scope) => scope.bytes > share);
    for (const { scope, bytes: at } of held) if (at <= share) tx.delete(scopesOver, scope);
    if (over.length === 0) break;
    over.sort((a, b) => b.bytes - a.bytes);
    const gives = levelled(over.map((scope) => scope.bytes - share), bytes - freed);
    for (let i = 0; i < gives.length && freed < bytes; i += 1) {
      const { scope, bytes: at } = over[i] as { scope: string; bytes: number };
      const got = forgetOldest(tx, scope, Math.min(gives[i] as number, bytes - freed));
      // Counted but holding no chunk (its requests went another way): nothing more to take from it.
      if (got === 0) forgetScope(tx, scope);
      else if (at - got <= share) tx.delete(scopesOver, scope);
      freed += got;
    }
  }
  return freed;
}

/**
 * What each of the scopes most over their share (`excess`, largest first) gives so that together they free `bytes`:
 * the largest brought down to the next, then both to the one after, and so on (at least a byte each, so that a scope
 * among equals gives a request).
 */
function levelled(excess: readonly number[], bytes: number): number[] {
  let sum = 0;
  for (let count = 1; count <= excess.length; count += 1) {
    sum += excess[count - 1] as number;
    const next = excess[count] ?? 0;
    if (sum - count * next >= bytes || count === excess.length) {
      const level = Math.max(next, (sum - bytes) / count);
      return excess.slice(0, count).map((value) => Math.max(1, Math.ceil(value - level)));
    }
  }
  return [];
}

/**
 * Frees at least `bytes` (or all the indexed scopes hold): the requests of the least recently active scopes, whole,
 * many at once; of the last one only its oldest, as many as still have to go.
 */
function forgetLeastRecent(tx: Tx, bytes: number): number {
  let freed = 0;
  while (freed < bytes) {
    const least = tx.scan(scopesByRecency, within([], { limit: leastRecentSlice }));
    if (least.length === 0) break;
    const scopes = least.map((entry) => parts(entry.key)[1] as string);
    const held = tx.getMany(scopeBytes, scopes);
    // Whole while what they hold is still to free; the index's entries read go with them (one that names a chunk
    // other than the scope's newest too: two processes marked it at once).
    let whole = 0;
    for (let sum = freed; whole < scopes.length && sum + (held[whole] ?? 0) <= bytes; whole += 1) sum += held[whole] ?? 0;
    freed += forgetWhole(tx, scopes.slice(0, whole));
    for (const entry of least.slice(0, whole)) tx.delete(scopesByRecency, entry.key);
    const last = scopes[whole];
    if (last !== undefined && freed < bytes) {
      const got = forgetOldest(tx, last, bytes - freed);
      if (got === 0) {
        forgetScope(tx, last);
        tx.delete(scopesByRecency, (least[whole] as { key: string }).key);
      }
      freed += got;
    }
  }
  return freed;
}

/** Forgets every request of the scopes, each chunk they hold rewritten (or dropped) once; the bytes freed. */
function forgetWhole(tx: Tx, scopes: readonly string[]): number {
  const leaving = new Map<number, { scopes: Set<string>; alone: boolean }>();
  // Every scope's chunks read before any is written: each read then looks through no write of this one.
  const held = scopes.map((scope) => tx.scan(scopeChunks, within([scope], { limit: Number.MAX_SAFE_INTEGER })));
  held.forEach((entries, index) => {
    for (const entry of entries) {
      tx.delete(scopeChunks, entry.key);
      const position = numberPart(entry.key, 1);
      const chunk = leaving.get(position) ?? { scopes: new Set<string>(), alone: entry.value === 1 };
      leaving.set(position, chunk);
      chunk.scopes.add(scopes[index] as string);
    }
  });
  let freed = 0;
  for (const [position, chunk] of leaving) freed += forgetIn(tx, position, chunk.scopes, chunk.alone);
  for (const scope of scopes) forgetScope(tx, scope);
  return freed;
}

/**
 * Forgets the scope's oldest requests, a chunk at a time, until `bytes` are freed or none is left; the bytes freed.
 * A scope left with no request is forgotten too, so that the scopes read while making room are those the journal
 * holds, not every key ever seen.
 */
function forgetOldest(tx: Tx, scope: string, bytes: number): number {
  let freed = 0;
  while (freed < bytes) {
    const oldest = tx.scan(scopeChunks, within([scope], { limit: dropSlice }));
    let i = 0;
    for (; i < oldest.length && freed < bytes; i += 1) {
      const entry = oldest[i] as { key: string; value: number };
      tx.delete(scopeChunks, entry.key);
      freed += forgetIn(tx, numberPart(entry.key, 1), new Set([scope]), entry.value === 1);
    }
    if (oldest.length < dropSlice) {
      if (i === oldest.length) forgetScope(tx, scope);
      break;
    }
  }
  return freed;
}

/**
 * Forgets the scopes' requests in the chunk at `position`: the whole chunk when it is one scope's alone, or their
 * requests made holes (the others keep their positions: a cursor holds one); the bytes freed.
 */
function forgetIn(tx: Tx, position: number, scopes: ReadonlySet<string>, alone: boolean): number {
  const value = tx.get(chunks, key(position));
  if (value === undefined) return 0;
  const jsonBytes = chunkJsonLength(value);
  if (alone) {
    tx.delete(chunks, key(position));
    // As counted when added: its JSON less the brackets, plus a comma a request.
    for (const scope of scopes) tx.add(scopeBytes, scope, -(jsonBytes - 1));
    return jsonBytes;
  }
  const before = recordsOf(value);
  const freedOf = new Map<string, number>();
  const records = before.map((record) => {
    if (record === null || !scopes.has(scopeOf(record))) return record;
    // As counted when it was added: its JSON and a comma.
    freedOf.set(scopeOf(record), (freedOf.get(scopeOf(record)) ?? 0) + Buffer.byteLength(JSON.stringify(record)) + 1);
    return null;
  });
  for (const [scope, freed] of freedOf) tx.add(scopeBytes, scope, -freed);
  if (records.every((record) => record === null)) {
    tx.delete(chunks, key(position));
    return jsonBytes;
  }
  const json = Buffer.from(JSON.stringify(records));
  tx.put(chunks, key(position), packChunk(json));
  return jsonBytes - json.byteLength;
}

/**
 * Forgets up to `limit` chunks' worth of the partner's requests (a partner's reset); true once none is left.
 */
export function forgetRequests(tx: Tx, partnerId: string, limit: number): boolean {
  const held = tx.scan(scopeChunks, within([partnerId], { limit }));
  let freed = 0;
  for (const entry of held) {
    tx.delete(scopeChunks, entry.key);
    freed += forgetIn(tx, numberPart(entry.key, 1), new Set([partnerId]), entry.value === 1);
  }
  tx.add(totals, bytesKey, -freed);
  if (held.length < limit) forgetScope(tx, partnerId);
  return held.length < limit;
}
