/**
 * How the SQLite backend answers a transaction's reads and writes its writes: durable tables in the file (with a
 * cache in front), ephemeral ones in memory. The cache is only right because this process is the file's one writer
 * (it holds it with EXCLUSIVE locking) and updates it at every write it makes; it is bounded, least recently used
 * first, and emptied whenever a commit fails.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { KeyRange } from '../keys.ts';
import { MemoryTables, type Undo } from '../memory/memory-tables.ts';
import type { Table } from '../store.ts';
import type { Source, Transaction, VersionedEntry, Write } from '../transaction.ts';
import { createReadCache, type ReadCache } from './read-cache.ts';
import { ScanCache } from './scan-cache.ts';
import { SqliteTables } from './sqlite-tables.ts';

const absent = Symbol('absent');
/** Values cached per table, per generation of the cache. */
const pointCapacity = 10_000;

export class SqliteSource implements Source {
  private readonly tables: SqliteTables;
  private readonly ephemeral = new MemoryTables();
  /** Per table: a key is its own cache key, hashed once, rather than a new string made at every read. */
  private readonly points = new Map<string, ReadCache<unknown>>();
  private readonly scans = new ScanCache();
  /** How to undo the ephemeral writes of the group being committed. */
  private undo: Undo[] = [];

  constructor(db: DatabaseSync) {
    this.tables = new SqliteTables(db);
  }

  get(table: Table<unknown>, key: string): unknown {
    if (table.ephemeral) return this.ephemeral.get(table, key);
    const points = this.pointsOf(table.name);
    let value = points.get(key);
    if (value === undefined) {
      value = this.tables.get(table, key) ?? absent;
      points.set(key, value);
    }
    return value === absent ? undefined : value;
  }

  getMany(table: Table<unknown>, keys: readonly string[]): unknown[] {
    return keys.map((key) => this.get(table, key));
  }

  scan(table: Table<unknown>, range: KeyRange): VersionedEntry[] {
    if (table.ephemeral) return this.ephemeral.scan(table, range);
    let entries = this.scans.get(table.name, range);
    if (!entries) this.scans.set(table.name, range, (entries = this.tables.scan(table, range)));
    return entries;
  }

  allocate(counter: string, count: number): number {
    return this.tables.allocate(counter, count);
  }

  /** Writes a transaction's writes, inside the group's transaction. */
  apply(tx: Transaction): void {
    const durable: Write[] = [];
    for (const write of tx.writes) {
      if (write.table.ephemeral) this.undo.push(...this.ephemeral.apply([write], true));
      else durable.push(write);
    }
    for (const write of durable) {
      const points = this.pointsOf(write.table.name);
      const before = points.get(write.key);
      // Dropped, not replaced: what is written is cached once read again, so that records written and not read
      // (answers kept for replay, journal lines) never fill the cache. Dropped first: should the write fail
      // half-way, the cache holds nothing the file does not.
      points.delete(write.key);
      this.scans.written(write.table.name, write.key);
      this.tables.write(write);
      // An add to a number read before: what the file now holds is known without reading it back.
      if (write.kind === 'add' && before !== undefined) points.set(write.key, (before === absent ? 0 : (before as number)) + write.delta);
    }
  }

  /** Writes a read's or a hold's writes (ephemeral tables only), outside any group. */
  applyEphemeral(tx: Transaction): void {
    this.ephemeral.apply(tx.writes);
  }

  /** Where the group's undo stands, to go back to if one transaction fails half-way through its writes. */
  mark(): number {
    return this.undo.length;
  }

  undoTo(mark: number): void {
    if (this.undo.length === mark) return;
    this.ephemeral.revert(this.undo.splice(mark));
    this.forgetCached();
  }

  committed(): void {
    this.undo = [];
  }

  rolledBack(): void {
    this.ephemeral.revert(this.undo);
    this.undo = [];
    this.forgetCached();
    this.tables.rereadExisting();
  }

  clear(keep: ReadonlySet<string>): void {
    this.tables.clear(keep);
    this.ephemeral.clear(keep);
    this.forgetCached();
  }

  private pointsOf(table: string): ReadCache<unknown> {
    let points = this.points.get(table);
    if (!points) this.points.set(table, (points = createReadCache(pointCapacity)));
    return points;
  }

  private forgetCached(): void {
    this.points.clear();
    this.scans.clear();
  }
}
