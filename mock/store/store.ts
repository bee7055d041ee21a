/**
 * The store: where the mock keeps what it remembers, as the rest of the mock sees it. It only stores and
 * retrieves. Every rule of the domain (an email once per partner, the caps, the lanes of webhook deliveries, the
 * claims on formation steps) is written once, in TypeScript, in the feature that owns it, as a transaction over the
 * few primitives below; each backend (memory, SQLite, Redis) implements those primitives and nothing else.
 *
 * - Data lives in tables of key → value, keys being tuples encoded in order (keys.ts): a table declared `ordered`
 *   can be read a range at a time.
 * - A transaction is a function of a `Tx`: it reads, and buffers its writes; the backend writes them all or none.
 *   A transaction sees its own writes.
 * - `write` is atomic and isolated on every backend: memory and SQLite run a transaction without interleaving
 *   anything else; Redis, which several processes share, checks at commit that nothing it read has changed
 *   meanwhile, and runs the transaction again if something has (so a body must not act outside its transaction).
 * - `ephemeral` tables hold what need not outlive the process holding it (leases: a create in flight, a claimed
 *   formation step): SQLite keeps them in memory, where a crash frees them with their holder; Redis keeps them
 *   in Redis, for the other replicas to see.
 * - Time is never read by the store: rules pass `now` in, so that tests can move it and replicas agree on it.
 */
import type { KeyRange } from './keys.ts';
import type { NoticeListener } from './notices.ts';

export interface TableOptions {
  /** Whether the rules read ranges of it; only ordered tables can be scanned. */
  ordered?: boolean;
  /** Kept for the life of the process on a store it owns (see above); shared on a store others write. */
  ephemeral?: boolean;
  /** Values are bytes (a PDF), stored as they are; otherwise JSON. */
  bytes?: boolean;
}

/** A table, with the type of its values (a handle: the data is the backend's). */
export interface Table<V> {
  readonly name: string;
  readonly ordered: boolean;
  readonly ephemeral: boolean;
  readonly bytes: boolean;
  /** Never set: carries `V` for the compiler. */
  readonly valueType?: V;
}

export function table<V>(name: string, options: TableOptions = {}): Table<V> {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`a table name is lower-case letters, digits and _, got ${JSON.stringify(name)}`);
  return { name, ordered: options.ordered ?? false, ephemeral: options.ephemeral ?? false, bytes: options.bytes ?? false };
}

/** What values are: JSON (never mutated once written: the memory backend keeps the object itself) or bytes. */
export type StoredValue = unknown;

export interface Entry<V> {
  key: string;
  value: V;
}

export interface ReadOptions {
  /**
   * Not checked for changes at commit (Redis): for a value that only guides the transaction (a count to prune by)
   * and would otherwise make concurrent writers retry each other.
   */
  snapshot?: boolean;
  /**
   * With `snapshot`: a value up to a second old will do, for a number that only guides the transaction (a count
   * past which to prune: read a little low, the pruning comes one write later). On Redis, what this process learned
   * lately, without a round trip (hints.ts). Never for what an answer shows: that is read as it is now.
   */
  recent?: boolean;
}

/**
 * What a transaction body sees. Reads answer at once: on memory and SQLite from the data itself; on Redis from
 * what the transaction has fetched so far, and a read of anything not fetched yet ends the run, is fetched, and the
 * body runs again (so a body is a plain function of what it reads, with no effect outside its transaction, and
 * never catches what a read throws).
 */
export interface Tx {
  get<V>(table: Table<V>, key: string, options?: ReadOptions): V | undefined;
  /** Several values at once (one round trip on Redis), in the order asked. */
  getMany<V>(table: Table<V>, keys: readonly string[], options?: ReadOptions): (V | undefined)[];
  /**
   * Entries of an ordered table within a range, in key order (or reversed), at most `range.limit`: read-only,
   * they may be the backend's own (a cache).
   */
  scan<V>(table: Table<V>, range: KeyRange, options?: ReadOptions): readonly Entry<V>[];
  /**
   * Numbers from a counter, never given twice (a counter may skip numbers: a transaction that fails or runs again
   * does not give back what it took): `count` numbers from the one returned. Counters outlive `clear`.
   */
  allocate(counter: string, count?: number): number;
  put<V>(table: Table<V>, key: string, value: V): void;
  delete(table: Table<unknown>, key: string): void;
  /** Adds to a number (absent: 0) without reading it, so that concurrent adders never retry each other. */
  add(table: Table<number>, key: string, delta: number): void;
  /**
   * Does `effect` once this run's writes are committed, and never for a run that is not (on Redis a body may run
   * several times): what a body tells the world (a log line) is told once, and only of what was done.
   */
  afterCommit(effect: () => void): void;
  /**
   * Tells whoever listens to the store (`Store.listen`) that something behind `channel` changed, once this run's
   * writes are committed; never for a run that is not (notices.ts). Each channel is told once per transaction.
   */
  notify(channel: string): void;
  /**
   * Whether this run of the body is sure to be run again (on Redis: it read a guess its commit cannot check), so
   * that what it returns and writes is thrown away: work that decides neither what is read nor what is written may
   * be skipped. Always false on memory and SQLite.
   */
  readonly rerun: boolean;
}

export type TxBody<T> = (tx: Tx) => T;

export interface Store {
  /** What it is, for logs and health: `memory`, `sqlite:/abs/path.db` or `redis://host:port/db` (never a password). */
  readonly description: string;
  /** Runs a body that only reads. */
  read<T>(body: TxBody<T>): Promise<T>;
  /** Runs a body and commits its writes, all or none; settles once they are as durable as the backend makes them. */
  write<T>(body: TxBody<T>): Promise<T>;
  /** Runs a body that writes ephemeral tables only (a lease), which need not wait for a disk. */
  hold<T>(body: TxBody<T>): Promise<T>;
  /**
   * Hears the channels of every committed transaction that noticed one (`Tx.notify`), this process's and, on a store
   * others write (Redis), theirs within a moment, until the function returned is called.
   */
  listen(listener: NoticeListener): () => void;
  /** Empties every table but those given (and the counters). */
  clear(keep: readonly Table<unknown>[]): Promise<void>;
  close(): Promise<void>;
}
