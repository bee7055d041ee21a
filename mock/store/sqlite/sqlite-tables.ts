/**
 * The SQLite backend's tables: one SQL table per store table (`t_NAME`, key and value, WITHOUT ROWID so the rows
 * are kept in key order), made when first written, and the counters (`_counters`). Values are JSON text, numbers
 * as numbers (so that `add` is arithmetic in SQL), bytes as BLOBs. Statements are prepared once per table.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { KeyRange } from '../keys.ts';
import type { Table } from '../store.ts';
import type { Write } from '../transaction.ts';

interface Statements {
  get: StatementSync;
  scan: StatementSync;
  scanReversed: StatementSync;
  put: StatementSync;
  delete: StatementSync;
  add: StatementSync;
}

type Row = Record<string, SQLInputValue>;

/** The SQL table that holds a store table. */
export const sqlTableName = (name: string): string => `"t_${name}"`;

/** Makes the SQL table of a store table, unless it is there. */
export function createSqlTable(db: DatabaseSync, name: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${sqlTableName(name)} (k TEXT PRIMARY KEY NOT NULL, v) WITHOUT ROWID`);
}

export class SqliteTables {
  private readonly existing = new Set<string>();
  private readonly statements = new Map<string, Statements>();
  private allocateStatement: StatementSync | undefined;

  constructor(private readonly db: DatabaseSync) {
    this.rereadExisting();
  }

  /** After a rolled-back commit, a table made in it may be gone: what exists is read again (kept as it was if it cannot be). */
  rereadExisting(): void {
    const rows = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 't\\_%' ESCAPE '\\'").all() as Row[];
    this.existing.clear();
    this.statements.clear();
    for (const row of rows) this.existing.add((row.name as string).slice(2));
  }

  /** Every store table this file holds. */
  names(): string[] {
    return [...this.existing];
  }

  get(table: Table<unknown>, key: string): unknown {
    if (!this.existing.has(table.name)) return undefined;
    const row = this.statementsOf(table).get.get(key) as Row | undefined;
    return row === undefined ? undefined : decode(table, row.v as SQLInputValue);
  }

  scan(table: Table<unknown>, range: KeyRange): { key: string; value: unknown }[] {
    if (!this.existing.has(table.name) || range.limit <= 0) return [];
    const statements = this.statementsOf(table);
    const rows = (range.reverse ? statements.scanReversed : statements.scan).all(range.low, range.high, range.limit) as Row[];
    return rows.map((row) => ({ key: row.k as string, value: decode(table, row.v as SQLInputValue) }));
  }

  write(write: Write): void {
    const statements = this.statementsOf(write.table, true);
    if (write.kind === 'put') statements.put.run(write.key, encode(write.table, write.value));
    else if (write.kind === 'delete') statements.delete.run(write.key);
    else statements.add.run(write.key, write.delta);
  }

  allocate(counter: string, count: number): number {
    this.allocateStatement ??= this.db.prepare('INSERT INTO _counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value RETURNING value');
    const last = Number((this.allocateStatement.get(counter, count) as Row).value);
    return last - count + 1;
  }

  /** Empties the tables not kept. */
  clear(keep: ReadonlySet<string>): void {
    for (const name of this.existing) if (!keep.has(name)) this.db.exec(`DELETE FROM ${sqlTableName(name)}`);
  }

  private statementsOf(table: Table<unknown>, create = false): Statements {
    let prepared = this.statements.get(table.name);
    if (prepared) return prepared;
    const name = sqlTableName(table.name);
    if (create && !this.existing.has(table.name)) {
      createSqlTable(this.db, table.name);
      this.existing.add(table.name);
    }
    prepared = {
      get: this.db.prepare(`SELECT v FROM ${name} WHERE k = ?`),
      scan: this.db.prepare(`SELECT k, v FROM ${name} WHERE k >= ? AND k < ? ORDER BY k LIMIT ?`),
      scanReversed: this.db.prepare(`SELECT k, v FROM ${name} WHERE k >= ? AND k < ? ORDER BY k DESC LIMIT ?`),
      put: this.db.prepare(`INSERT INTO ${name} (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`),
      delete: this.db.prepare(`DELETE FROM ${name} WHERE k = ?`),
      add: this.db.prepare(`INSERT INTO ${name} (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = v + excluded.v`),
    };
    this.statements.set(table.name, prepared);
    return prepared;
  }
}

function encode(table: Table<unknown>, value: unknown): SQLInputValue {
  if (table.bytes) return value as Uint8Array;
  return typeof value === 'number' ? value : JSON.stringify(value);
}

function decode(table: Table<unknown>, stored: SQLInputValue): unknown {
  if (table.bytes) return stored as Uint8Array;
  return typeof stored === 'number' ? stored : JSON.parse(stored as string);
}
