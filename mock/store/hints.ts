/**
 * What one process last knew of a store other processes write (Redis): values and ranges with their versions, as
 * fetched or as this process committed them. A transaction's first run reads them instead of guessing "absent", so
 * that a body whose reads depend on each other (the customer an e-mail names, then its companies) runs whole
 * without a round trip per step, and its commit, which checks the version of every key and the entries of every
 * range it read, either proves them current or writes nothing. A hint is never trusted, only checked: a stale one
 * costs a round trip (the failed commit; then what was read is fetched), never a wrong answer.
 *
 * Versions are unique over the store's life (the commit script seeds its clock from the time of day when it has
 * none, as after a restart of Redis that lost its data), so a hint from before such a restart cannot pass a check;
 * and the Redis store forgets its hints whenever its connection closes (a restart, a failover to a replica that
 * missed the last writes and would give their versions again).
 * A snapshot read is not checked at commit, so it takes no hint: it is read as it is now, for an answer shows it
 * and a partner may have written it through another process a moment ago. A snapshot read that may be a little
 * old (`recent`: a count that guides a pruning) takes a hint younger than `recentMaxAgeMs`.
 */
import type { KeyRange } from './keys.ts';
import type { Table } from './store.ts';
import type { ReadKind, Versioned, VersionedEntry, Write } from './transaction.ts';

/** A key known absent: checked at commit as version 0, as a guess is. */
const absent: Versioned = Object.freeze({ value: undefined, version: 0 });

/** Ranges of more entries are not kept: a hint is for the short reads a request makes, not a table's worth. */
const maxRangeEntries = 256;

/** How old a hint a `recent` read takes at most. */
const recentMaxAgeMs = 1_000;

interface Held<T> {
  found: T;
  at: number;
}

/** A checked read takes any hint (the commit checks it); a `recent` one only a young hint. */
const usable = (held: Held<unknown>, kind: ReadKind): boolean => kind === 'checked' || Date.now() - held.at <= recentMaxAgeMs;

export interface HeldRange {
  table: Table<unknown>;
  range: KeyRange;
  entries: VersionedEntry[];
}

const valueId = (table: Table<unknown>, key: string): string => `${table.name}\u0002${key}`;

/** The id of a range: its table and bounds, as `Fetched` and `Hints` key them. */
export function rangeId(table: Table<unknown>, range: KeyRange): string {
  return `${table.name}\u0002${range.low}\u0002${range.high}\u0002${range.reverse ? 1 : 0}\u0002${range.limit}`;
}

export class Hints {
  /** table NUL-2 key → the value; the oldest learned first, the first to go past `maxValues`. */
  private readonly values = new Map<string, Held<Versioned>>();
  /** table name → range id → the range; at most `maxRangesPerTable` per table, the oldest going first. */
  private readonly ranges = new Map<string, Map<string, Held<HeldRange>>>();

  /** Counts the clears: a run that took a hint before one commits nothing (see `runOptimistic`). */
  generation = 0;

  constructor(
    private readonly maxValues = 4_096,
    private readonly maxRangesPerTable = 64,
  ) {}

  /** The hinted value of a key (`absent` when known absent), or undefined when there is none to take. */
  value(table: Table<unknown>, key: string, kind: ReadKind): Versioned | undefined {
    if (kind === 'snapshot') return undefined;
    const held = this.values.get(valueId(table, key));
    return held === undefined || !usable(held, kind) ? undefined : held.found;
  }

  range(table: Table<unknown>, id: string, kind: ReadKind): VersionedEntry[] | undefined {
    if (kind === 'snapshot') return undefined;
    const held = this.ranges.get(table.name)?.get(id);
    return held === undefined || !usable(held, kind) ? undefined : held.found.entries;
  }

  /** A value fetched or committed; a table of bytes is not kept (its values are large, and never read twice). */
  learnValue(table: Table<unknown>, key: string, found: Versioned | undefined): void {
    if (table.bytes) return;
    const id = valueId(table, key);
    const known = this.values.get(id);
    // A fetch answered after a commit of this process wrote the key anew: the commit's is the newer.
    if (known !== undefined && found !== undefined && (known.found.version ?? 0) > (found.version ?? 0)) return;
    this.values.delete(id);
    this.values.set(id, { found: found ?? absent, at: Date.now() });
    if (this.values.size > this.maxValues) this.values.delete(this.values.keys().next().value as string);
  }

  learnRange(held: HeldRange, id: string): void {
    if (held.table.bytes || held.entries.length > maxRangeEntries) return;
    let ranges = this.ranges.get(held.table.name);
    if (!ranges) this.ranges.set(held.table.name, (ranges = new Map()));
    ranges.delete(id);
    ranges.set(id, { found: held, at: Date.now() });
    if (ranges.size > this.maxRangesPerTable) ranges.delete(ranges.keys().next().value as string);
  }

  /**
   * What a commit wrote, at the version it wrote it (`sums`: the value after each `add`, in order). The ranges of
   * an ordered table that hold a key written are dropped rather than mended.
   */
  learnCommit(writes: readonly Write[], version: number, sums: readonly number[]): void {
    let added = 0;
    for (const write of writes) {
      const { table, key } = write;
      if (write.kind === 'put') this.learnValue(table, key, { value: write.value, version });
      else if (write.kind === 'delete') this.learnValue(table, key, undefined);
      else this.learnValue(table, key, { value: sums[added++], version });
      if (table.ordered) this.forgetRangesHolding(table, key);
    }
  }

  clear(): void {
    this.values.clear();
    this.ranges.clear();
    this.generation += 1;
  }

  private forgetRangesHolding(table: Table<unknown>, key: string): void {
    const ranges = this.ranges.get(table.name);
    if (!ranges) return;
    for (const [id, { found }] of ranges) if (key >= found.range.low && key < found.range.high) ranges.delete(id);
  }
}
