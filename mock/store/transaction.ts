/**
 * Running a transaction, the same for every backend: the body reads through a `Source`, its writes are buffered
 * and handed to the backend as one set, and it sees its own writes.
 *
 * - `runNow` (memory, SQLite): the source answers at once, so the body runs from its first read to its last write
 *   as one plain function call, with nothing interleaving and so nothing to conflict with.
 * - `runOptimistic` (Redis, optimistic.ts): the source answers over the network, from what has been fetched so far;
 *   the commit checks that nothing read has changed meanwhile.
 */
import type { KeyRange } from './keys.ts';
import type { Entry, ReadOptions, Table, Tx, TxBody } from './store.ts';

/** A value as a backend answers it: with the version it has on a backend that checks for changes (Redis). */
export interface Versioned {
  value: unknown;
  version?: number;
}

export interface VersionedEntry extends Versioned {
  key: string;
}

/**
 * The reads a source answers at once. A source whose commits check what was read answers values with their
 * versions (`Versioned`, and `VersionedEntry` for ranges); one that runs transactions alone answers the values as
 * they are, with no wrapper to allocate on the hot path.
 */
export interface Source {
  /** Whether a read answered a guess the commit cannot check (a number, a snapshot): the run is made again. */
  readonly uncheckable?: boolean;
  get(table: Table<unknown>, key: string, kind?: ReadKind): unknown;
  getMany(table: Table<unknown>, keys: readonly string[], kind?: ReadKind): unknown[];
  scan(table: Table<unknown>, range: KeyRange, kind?: ReadKind): VersionedEntry[];
  allocate(counter: string, count: number): number;
}

/** One key's pending write: its final value, its removal, or an amount to add to what is stored. */
export type Write = { table: Table<unknown>; key: string } & ({ kind: 'put'; value: unknown } | { kind: 'delete' } | { kind: 'add'; delta: number });

/**
 * A transaction's writes, one per key (a later write of a key replaces the earlier), in a list: a transaction
 * writes a few keys, found by looking through them, until it writes many, when they are indexed.
 */
class Writes {
  readonly list: Write[] = [];
  /** Table → key → position in `list`, once there are many. */
  private index: Map<Table<unknown>, Map<string, number>> | undefined;

  find(table: Table<unknown>, key: string): Write | undefined {
    const at = this.position(table, key);
    return at === undefined ? undefined : this.list[at];
  }

  set(write: Write): void {
    const at = this.position(write.table, write.key);
    if (at !== undefined) {
      this.list[at] = write;
      return;
    }
    this.list.push(write);
    if (this.index) this.indexed(write.table).set(write.key, this.list.length - 1);
    else if (this.list.length > 32) {
      this.index = new Map();
      this.list.forEach((entry, i) => this.indexed(entry.table).set(entry.key, i));
    }
  }

  /** The writes to `table` of keys from `low` to before `high`: once indexed, read from that table's own. */
  within(table: Table<unknown>, low: string, high: string): Write[] {
    const inRange = (write: Write) => write.key >= low && write.key < high;
    if (!this.index) return this.list.filter((write) => write.table === table && inRange(write));
    const found: Write[] = [];
    for (const at of this.index.get(table)?.values() ?? []) {
      const write = this.list[at] as Write;
      if (inRange(write)) found.push(write);
    }
    return found;
  }

  private indexed(table: Table<unknown>): Map<string, number> {
    let keys = (this.index as Map<Table<unknown>, Map<string, number>>).get(table);
    if (!keys) (this.index as Map<Table<unknown>, Map<string, number>>).set(table, (keys = new Map()));
    return keys;
  }

  private position(table: Table<unknown>, key: string): number | undefined {
    if (this.index) return this.index.get(table)?.get(key);
    for (let i = this.list.length - 1; i >= 0; i -= 1) {
      const write = this.list[i] as Write;
      if (write.key === key && write.table === table) return i;
    }
    return undefined;
  }
}

/** What was read, for a commit to check: the version of each key (0: it was absent). */
export interface TableReads {
  table: Table<unknown>;
  versions: Map<string, number>;
}

/**
 * How a read is made (`ReadOptions`): checked at commit; a snapshot, not checked, as it is now; or a snapshot that
 * may be a little old (`recent`).
 */
export type ReadKind = 'checked' | 'snapshot' | 'recent';

const kindOf = (options: ReadOptions | undefined): ReadKind => (!options?.snapshot ? 'checked' : options.recent ? 'recent' : 'snapshot');

/** A range read, for a commit to check that it would read the same entries, at the same versions, now. */
export interface RangeRead {
  table: Table<unknown>;
  /** The range as asked of the backend (a transaction with pending writes in it asks for more). */
  range: KeyRange;
  entries: readonly VersionedEntry[];
}

export type Mode = 'read' | 'write' | 'hold';

/**
 * What an optimistic source answers for a read it has not fetched yet while the body runs on guesses
 * (optimistic.ts): absent, at version 0, which a commit can check.
 */
export const guessed: Versioned = Object.freeze({ value: undefined, version: 0 });

/** Shared by every transaction that has not noted a read. */
const none: ReadonlyMap<string, never> = new Map<string, never>();
const noWrites: readonly Write[] = [];
const noRanges: readonly RangeRead[] = [];

export class Transaction implements Tx {
  private written: Writes | undefined;
  private read: Map<string, TableReads> | undefined;
  private ranged: RangeRead[] | undefined;
  private effects: (() => void)[] | undefined;
  private noticed: Set<string> | undefined;
  /** Whether a guess was read as a snapshot: the commit does not check it, so it may not commit on guesses. */
  guessedUnchecked = false;
  /**
   * Whether a key was seen at two versions (a versioned source only): by itself and in a range fetched rounds
   * apart, or guessed beside a fetched value. The body saw no one state, so the run is never committed.
   */
  inconsistent = false;

  /** `versioned`: the source answers with versions, which the commit checks (a backend other processes write). */
  constructor(
    readonly mode: Mode,
    private readonly source: Source,
    private readonly versioned = false,
  ) {}

  get isReadOnly(): boolean {
    return this.written === undefined;
  }

  get rerun(): boolean {
    return this.guessedUnchecked || this.inconsistent || this.source.uncheckable === true;
  }

  /** Its writes, one per key written. */
  get writes(): readonly Write[] {
    return this.written?.list ?? noWrites;
  }

  /** The versions of what it read, by table (a versioned source only). */
  get reads(): ReadonlyMap<string, TableReads> {
    return this.read ?? none;
  }

  /** The ranges it read, as read (a versioned source only). */
  get ranges(): readonly RangeRead[] {
    return this.ranged ?? noRanges;
  }

  get<V>(table: Table<V>, key: string, options?: ReadOptions): V | undefined {
    const pending = this.written?.find(table, key);
    if (pending === undefined) return this.valueOf(table, key, this.source.get(table, key, kindOf(options)), options) as V | undefined;
    if (pending.kind !== 'add') return (pending.kind === 'put' ? pending.value : undefined) as V | undefined;
    return overlay(pending, this.valueOf(table, key, this.source.get(table, key, kindOf(options)), options)) as V | undefined;
  }

  getMany<V>(table: Table<V>, keys: readonly string[], options?: ReadOptions): (V | undefined)[] {
    const pending = this.written;
    const found = keys.length === 0 ? [] : this.source.getMany(table, keys, kindOf(options));
    return keys.map((key, index) => {
      const write = pending?.find(table, key);
      if (write !== undefined && write.kind !== 'add') return (write.kind === 'put' ? write.value : undefined) as V | undefined;
      return overlay(write, this.valueOf(table, key, found[index], options)) as V | undefined;
    });
  }

  scan<V>(table: Table<V>, range: KeyRange, options?: ReadOptions): readonly Entry<V>[] {
    if (!table.ordered) throw new Error(`table ${table.name} is not ordered: it cannot be scanned`);
    const pending = this.written ? this.written.within(table, range.low, range.high) : noWrites;
    // Pending deletes may hide entries the backend returns: ask for as many more.
    const asked = pending.length === 0 ? range : { ...range, limit: range.limit + pending.length };
    const found = this.source.scan(table, asked, kindOf(options));
    if (this.versioned && !options?.snapshot) {
      for (const entry of found) this.noteRead(table, entry.key, entry);
      (this.ranged ??= []).push({ table, range: asked, entries: found });
    }
    // Entries as the source gave them (a version is one property more), not copied.
    if (pending.length === 0) return found as Entry<V>[];
    const merged = new Map<string, unknown>(found.map((entry) => [entry.key, entry.value]));
    for (const write of pending) {
      const value = overlay(write, merged.get(write.key));
      if (value === undefined) merged.delete(write.key);
      else merged.set(write.key, value);
    }
    const keys = [...merged.keys()].sort();
    if (range.reverse) keys.reverse();
    return keys.slice(0, range.limit).map((key) => ({ key, value: merged.get(key) as V }));
  }

  allocate(counter: string, count = 1): number {
    if (this.mode !== 'write') throw new Error('only a write transaction allocates numbers');
    return this.source.allocate(counter, count);
  }

  put<V>(table: Table<V>, key: string, value: V): void {
    this.writesTo(table).set({ table, key, kind: 'put', value });
  }

  delete(table: Table<unknown>, key: string): void {
    this.writesTo(table).set({ table, key, kind: 'delete' });
  }

  add(table: Table<number>, key: string, delta: number): void {
    const writes = this.writesTo(table);
    const before = writes.find(table, key);
    if (before === undefined) writes.set({ table, key, kind: 'add', delta });
    else if (before.kind === 'add') writes.set({ table, key, kind: 'add', delta: before.delta + delta });
    else writes.set({ table, key, kind: 'put', value: (before.kind === 'put' ? (before.value as number) : 0) + delta });
  }

  afterCommit(effect: () => void): void {
    (this.effects ??= []).push(effect);
  }

  notify(channel: string): void {
    if (this.mode === 'read') throw new Error('a read transaction cannot notify: it changes nothing');
    (this.noticed ??= new Set()).add(channel);
  }

  /** The channels it noticed, for the backend to deliver once it is committed (notices.ts). */
  get notices(): ReadonlySet<string> | undefined {
    return this.noticed;
  }

  /** Called by the backend once the run's writes are committed. */
  committed(): void {
    for (const effect of this.effects ?? []) effect();
  }

  /** A value as the source answered it, its version noted where the commit checks it. */
  private valueOf(table: Table<unknown>, key: string, found: unknown, options: ReadOptions | undefined): unknown {
    if (!this.versioned) return found;
    const versioned = found as Versioned | undefined;
    if (!options?.snapshot) this.noteRead(table, key, versioned);
    else if (found === guessed) this.guessedUnchecked = true;
    return versioned?.value;
  }

  private writesTo(table: Table<unknown>): Writes {
    if (this.mode === 'read') throw new Error('a read transaction cannot write');
    if (this.mode === 'hold' && !table.ephemeral) throw new Error(`a hold writes ephemeral tables only, not ${table.name}`);
    return (this.written ??= new Writes());
  }

  private noteRead(table: Table<unknown>, key: string, found: Versioned | undefined): void {
    this.read ??= new Map();
    let entry = this.read.get(table.name);
    if (!entry) this.read.set(table.name, (entry = { table, versions: new Map() }));
    const version = found?.version ?? 0;
    const noted = entry.versions.get(key);
    if (noted === undefined) entry.versions.set(key, version);
    else if (noted !== version) this.inconsistent = true;
  }
}

/** A value as the transaction sees it: its own pending write over what the backend holds. */
function overlay(write: Write | undefined, stored: unknown): unknown {
  if (write === undefined) return stored;
  if (write.kind === 'put') return write.value;
  if (write.kind === 'delete') return undefined;
  return ((stored as number | undefined) ?? 0) + write.delta;
}

/** Runs a body against a source that answers at once; throws what the body throws. */
export function runNow<T>(body: TxBody<T>, source: Source, mode: Mode): { value: T; tx: Transaction } {
  const tx = new Transaction(mode, source);
  return { value: body(tx), tx };
}
