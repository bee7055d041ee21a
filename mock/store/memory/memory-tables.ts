/**
 * Tables in this process's heap: a Map for a table read by key, a B+ tree (sorted-btree) for an ordered table, read
 * by key and by range. What the memory backend keeps everything in, and the SQLite backend its ephemeral tables.
 * Values are kept as written, never copied: the rules never change a value once written (with `freeze`, as the
 * tests run it, an attempt to throws).
 */
import btreeModule from 'sorted-btree';
import type { KeyRange } from '../keys.ts';
import type { Table } from '../store.ts';
import type { Source, VersionedEntry, Write } from '../transaction.ts';

type BTreeOf = import('sorted-btree').default<string, unknown>;
// The package is CommonJS with its class as `default`: Node's import gives the module object, a bundler the class.
const BTree = ((btreeModule as unknown as { default?: unknown }).default ?? btreeModule) as new (entries: undefined, compare: (a: string, b: string) => number) => BTreeOf;

/** Keys are strings only: compared as such, not through the library's comparator for keys of any type. */
const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One table: its keys and values, in a Map or, when ordered, a tree (both read and written the same way). */
type Stored = Map<string, unknown> | BTreeOf;

/** An undo record: how to put a key back as it was. */
export interface Undo {
  table: Table<unknown>;
  key: string;
  had: boolean;
  value: unknown;
}

export class MemoryTables implements Source {
  private readonly tables = new Map<string, Stored>();
  private readonly counters = new Map<string, number>();

  constructor(private readonly options: { freeze?: boolean } = {}) {}

  private tableOf(table: Table<unknown>): Stored {
    let found = this.tables.get(table.name);
    if (!found) this.tables.set(table.name, (found = table.ordered ? new BTree(undefined, compareKeys) : new Map()));
    return found;
  }

  get(table: Table<unknown>, key: string): unknown {
    return this.tables.get(table.name)?.get(key);
  }

  getMany(table: Table<unknown>, keys: readonly string[]): unknown[] {
    const stored = this.tables.get(table.name);
    return keys.map((key) => stored?.get(key));
  }

  scan(table: Table<unknown>, range: KeyRange): VersionedEntry[] {
    const stored = this.tables.get(table.name);
    if (!stored || stored instanceof Map || range.limit <= 0) return [];
    const entries: VersionedEntry[] = [];
    if (!range.reverse) {
      stored.forRange(range.low, range.high, false, (key, value) => (entries.push({ key, value }), entries.length >= range.limit ? { break: true } : undefined));
      return entries;
    }
    // Newest first: one descent per entry, no iterator to set up. Most reverse reads are a short page, often of
    // nothing (a customer's companies), where the tree's reversed iterator costs more than the descents.
    const pair = stored.nextLowerPair(range.high);
    while (pair !== undefined && pair[0] >= range.low && entries.length < range.limit) {
      entries.push({ key: pair[0], value: pair[1] });
      if (stored.nextLowerPair(pair[0], pair) === undefined) break;
    }
    return entries;
  }

  allocate(counter: string, count: number): number {
    const first = (this.counters.get(counter) ?? 0) + 1;
    this.counters.set(counter, first + count - 1);
    return first;
  }

  /** Writes a transaction's writes; returns how to undo them when asked to. */
  apply(writes: readonly Write[], keepUndo = false): Undo[] {
    const undo: Undo[] = [];
    for (const write of writes) {
      const stored = this.tableOf(write.table);
      const { key } = write;
      if (keepUndo) undo.push({ table: write.table, key, had: stored.has(key), value: stored.get(key) });
      if (write.kind === 'delete') stored.delete(key);
      else {
        const value = write.kind === 'put' ? write.value : ((stored.get(key) as number | undefined) ?? 0) + write.delta;
        stored.set(key, this.options.freeze ? deepFreeze(value) : value);
      }
    }
    return undo;
  }

  /** Puts keys back as they were before `apply`, newest change first. */
  revert(undo: readonly Undo[]): void {
    for (let i = undo.length - 1; i >= 0; i -= 1) {
      const { table, key, had, value } = undo[i] as Undo;
      const stored = this.tableOf(table);
      if (had) stored.set(key, value);
      else stored.delete(key);
    }
  }

  /** Empties every table whose name is not kept (counters stay). */
  clear(keep: ReadonlySet<string>): void {
    for (const name of [...this.tables.keys()]) if (!keep.has(name)) this.tables.delete(name);
  }
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
