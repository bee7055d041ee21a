/**
 * Idempotency records and their rules. A create takes its key (the operation and the Idempotency-Key, within the
 * partner) with a lock, an ephemeral record, held by one request at a time across every process on the store,
 * which a holder that died cannot keep past its expiry. The create's answer is stored in the same transaction as
 * the change it made (`complete`, called inside that transaction): after any crash, a retry either replays it or
 * runs for the first time, never twice.
 *
 * Completed records are replayed for `ttlMs`, and at most `maxPerPartner` are kept per partner (its oldest dropped
 * first): never another partner's, and never a create still in flight (its lock is not a record).
 */
import { key, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';

/** An answer as stored for replay: its bytes, not a parsed tree. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

export type IdempotencyRecord = { state: 'in-flight'; fingerprint: string } | { state: 'done'; fingerprint: string; response: StoredResponse };

/** One create's hold on its key: the scope (operation and key) within the partner, and who holds it. */
export interface IdempotencyLock {
  partnerId: string;
  scope: string;
  /** Unique per request, across processes: only the holder completes, renews or abandons the record. */
  owner: string;
}

export type IdempotencyBegin = { began: true } | { began: false; record: IdempotencyRecord };

interface Held {
  owner: string;
  fingerprint: string;
  until: number;
  /** Whether the key had a record (expired) when the lock was taken: only then can `complete` find one to replace. */
  replaces: boolean;
}

interface Completed {
  fingerprint: string;
  createdAt: number;
  /** Orders the records stored in one millisecond (by this process). */
  order: number;
  status: number;
  headers: Record<string, string>;
  /** The body as text, or base64 for bytes (`binary`). */
  body: string;
  binary?: true;
}

/** partner, scope → the lock of a create in flight. */
const locks = table<Held>('idempotency_locks', { ephemeral: true });
const records = table<Completed>('idempotency');
/**
 * partner, createdAt, order → scope: the partner's records oldest first, the order they expire in (the retention
 * is fixed) and are dropped past the cap.
 */
const byAge = table<string>('idempotency_by_age', { ordered: true });
/** partner → records stored. */
const counts = table<number>('idempotency_counts');

export interface IdempotencyOptions {
  /** How long a completed record is kept (the contract publishes 24 hours). */
  ttlMs: number;
  /** Records kept per partner; past it that partner's oldest are dropped. */
  maxPerPartner: number;
}

/** Records dropped by one create at most: dropping never makes one create slow. */
const dropBatch = 16;

/** Breaks ties between records stored in the same millisecond: the first stored is the oldest. */
let storedCount = 0;

export function idempotencyRecords(options: IdempotencyOptions) {
  const live = (record: Completed | undefined, now: number): record is Completed => record !== undefined && record.createdAt + options.ttlMs > now;

  /** The live record of this scope, or, when there is none, a lock taken for `lock.owner` until `now + lockMs`. A hold. */
  function begin(tx: Tx, lock: IdempotencyLock, fingerprint: string, now: number, lockMs: number): IdempotencyBegin {
    const at = key(lock.partnerId, lock.scope);
    const done = tx.get(records, at);
    if (live(done, now)) return { began: false, record: { state: 'done', fingerprint: done.fingerprint, response: responseOf(done) } };
    const held = tx.get(locks, at);
    if (held && held.until > now) return { began: false, record: { state: 'in-flight', fingerprint: held.fingerprint } };
    tx.put(locks, at, { owner: lock.owner, fingerprint, until: now + lockMs, replaces: done !== undefined });
    return { began: true };
  }

  /** Extends the lock of a request still running; false when the owner no longer holds it. A hold. */
  function renew(tx: Tx, lock: IdempotencyLock, now: number, lockMs: number): boolean {
    const at = key(lock.partnerId, lock.scope);
    const held = tx.get(locks, at);
    if (held?.owner !== lock.owner) return false;
    tx.put(locks, at, { ...held, until: now + lockMs });
    return true;
  }

  /** Frees the key (a 5xx or 429 is not stored), if the owner still holds it. A hold. */
  function abandon(tx: Tx, lock: IdempotencyLock): void {
    const at = key(lock.partnerId, lock.scope);
    if (tx.get(locks, at)?.owner === lock.owner) tx.delete(locks, at);
  }

  /**
   * Inside the create's own transaction: stores its answer and frees the key; false, with nothing written, when
   * the owner no longer holds the lock (the request outlived it and another took the key over).
   */
  function complete(tx: Tx, lock: IdempotencyLock, response: StoredResponse, now: number): boolean {
    const { at, held, stored, previous } = completionReads(tx, lock);
    if (held?.owner !== lock.owner) return false;
    if (previous) tx.delete(byAge, key(lock.partnerId, previous.createdAt, previous.order));
    else tx.add(counts, lock.partnerId, 1);
    const binary = typeof response.body !== 'string';
    const body = typeof response.body === 'string' ? response.body : Buffer.from(response.body).toString('base64');
    const order = (storedCount += 1);
    tx.put(records, at, { fingerprint: held.fingerprint, createdAt: now, order, status: response.status, headers: response.headers, body, ...(binary ? { binary: true as const } : {}) });
    tx.put(byAge, key(lock.partnerId, now, order), lock.scope);
    tx.delete(locks, at);
    dropOldest(tx, lock.partnerId, previous ? stored : stored + 1);
    return true;
  }


  /**
   * Past the cap (`count`: the partner's records, this one included), the partner's oldest records go, a batch at
   * a time. Expired ones are not looked for otherwise: a record past its retention is never replayed (`begin` reads
   * it as absent), and the cap bounds what is kept.
   */
  function dropOldest(tx: Tx, partnerId: string, count: number): void {
    if (count <= options.maxPerPartner) return;
    // Not a snapshot: two processes dropping the same records retry rather than count them twice.
    const oldest = tx.scan(byAge, within([partnerId], { limit: Math.min(count - options.maxPerPartner, dropBatch) }));
    for (const entry of oldest) {
      tx.delete(records, key(partnerId, entry.value));
      tx.delete(byAge, entry.key);
    }
    tx.add(counts, partnerId, -oldest.length);
  }

  /** Live completed records of the partner. */
  function count(tx: Tx, partnerId: string, now: number): number {
    const entries = tx.scan(byAge, within([partnerId], { after: [Math.max(0, now - options.ttlMs)], limit: Number.MAX_SAFE_INTEGER }), { snapshot: true });
    return entries.length;
  }

  /**
   * Forgets up to `limit` of the partner's records; true when none is left. A create in flight keeps its lock: it
   * ends as it would have, its answer stored after the reset, as if it had come after it.
   */
  function forget(tx: Tx, partnerId: string, limit: number): boolean {
    const entries = tx.scan(byAge, within([partnerId], { limit }));
    for (const entry of entries) {
      tx.delete(records, key(partnerId, entry.value));
      tx.delete(byAge, entry.key);
    }
    if (entries.length < limit) tx.delete(counts, partnerId);
    else tx.add(counts, partnerId, -entries.length);
    return entries.length < limit;
  }

  return { begin, renew, abandon, complete, count, forget };
}

/**
 * What `complete` reads, and nothing else: a run of the create's transaction that is sure to be made again (on
 * Redis, `tx.rerun`) reads them so that they are fetched with the change's reads, without building an answer.
 */
export function completionReads(tx: Tx, lock: IdempotencyLock) {
  const at = key(lock.partnerId, lock.scope);
  // The lock and the count read before either is looked at: a backend over the network fetches them together.
  const held = tx.get(locks, at);
  const stored = tx.get(counts, lock.partnerId, { snapshot: true, recent: true }) ?? 0;
  // No record when the lock was taken: none since, as only the lock's holder stores one.
  const previous = held?.owner === lock.owner && held.replaces ? tx.get(records, at) : undefined;
  return { at, held, stored, previous };
}

function responseOf(record: Completed): StoredResponse {
  return { status: record.status, headers: record.headers, body: record.binary ? new Uint8Array(Buffer.from(record.body, 'base64')) : record.body };
}
