/**
 * The SQLite backend's cache of ranges read (a customer's companies, a partner's oldest records…), for the one
 * process that writes the file. A write drops only the cached ranges it could change: those of its table, in its
 * partition (a key's first part, the partner most often), whose covered keys include it. A range cut at its limit
 * covers only up to its last entry: keys written past it do not change what it returned.
 */
import type { KeyRange } from '../keys.ts';
import type { VersionedEntry } from '../transaction.ts';

interface CachedRange {
  entries: VersionedEntry[];
  /** The keys whose writes change the result: from `low` (inclusive) to `high` (exclusive). */
  low: string;
  high: string;
}

/** Ranges cached at most, over all tables: past it, the cache starts afresh. */
const capacity = 20_000;

const firstPart = (key: string): string => {
  const end = key.indexOf('\u0000');
  return end < 0 ? key : key.slice(0, end);
};

/** The partition of a range: its keys' common first part, or '' for a range across partitions. */
const partitionOf = (range: KeyRange): string => {
  const part = firstPart(range.low);
  return range.high.startsWith(`${part}\u0000`) || range.high === `${part}\u0001` ? part : '';
};

export class ScanCache {
  private readonly tables = new Map<string, Map<string, Map<string, CachedRange>>>();
  private size = 0;

  get(table: string, range: KeyRange): VersionedEntry[] | undefined {
    return this.tables.get(table)?.get(partitionOf(range))?.get(rangeKey(range))?.entries;
  }

  set(table: string, range: KeyRange, entries: VersionedEntry[]): void {
    if (this.size >= capacity) this.clear();
    let partitions = this.tables.get(table);
    if (!partitions) this.tables.set(table, (partitions = new Map()));
    const partition = partitionOf(range);
    let ranges = partitions.get(partition);
    if (!ranges) partitions.set(partition, (ranges = new Map()));
    const cut = entries.length >= range.limit ? (entries.at(-1) as VersionedEntry).key : undefined;
    const covered = cut === undefined ? { low: range.low, high: range.high } : range.reverse ? { low: cut, high: range.high } : { low: range.low, high: `${cut}\u0000` };
    if (!ranges.has(rangeKey(range))) this.size += 1;
    ranges.set(rangeKey(range), { entries, ...covered });
  }

  /** Drops the cached ranges a write of `key` could change. */
  written(table: string, key: string): void {
    const partitions = this.tables.get(table);
    if (!partitions) return;
    for (const partition of [firstPart(key), '']) {
      const ranges = partitions.get(partition);
      if (!ranges) continue;
      for (const [id, cached] of ranges) {
        if (key >= cached.low && key < cached.high) {
          ranges.delete(id);
          this.size -= 1;
        }
      }
    }
  }

  clear(): void {
    this.tables.clear();
    this.size = 0;
  }
}

function rangeKey(range: KeyRange): string {
  return `${range.low}\u0002${range.high}\u0002${range.reverse ? 1 : 0}\u0002${range.limit}`;
}
