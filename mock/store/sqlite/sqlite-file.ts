/**
 * The SQLite backend's file: opened (owned by this process, in WAL mode), checked, laid out, and made again when it
 * is damaged. A damaged file (a bad sector, a stray write) would otherwise be served until a request met the
 * damage, and fail there and at every reset after; it is refused at start instead, with what to do. A file that goes
 * bad while the mock runs is an outage that lasts (StoreDamaged) until a full reset moves it aside and starts a new
 * one.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { StoreDamaged, StoreError } from '../store-error.ts';
import { createSqlTable, sqlTableName } from './sqlite-tables.ts';

/** The layout of the file; a file of another version is refused (see migrate). */
export const schemaVersion = 5;

type Row = Record<string, SQLInputValue>;

/** SQLITE_CORRUPT and SQLITE_NOTADB (in their primary codes): the file is not what SQLite wrote. */
export function isDamage(error: unknown): boolean {
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === 'number' && [11, 26].includes(code & 0xff);
}

/**
 * Ends the transaction open on `db`, if one is, and never throws: SQLite rolls a transaction back by itself on some
 * errors (a full disk, an I/O error, a damaged page), after which a ROLLBACK fails with "cannot rollback - no
 * transaction is active", and that must not hide the error being handled. Tried rather than asked first: Node
 * before 22.16 has no `isTransaction`, and asking it there answered undefined, so that a failed commit was never
 * rolled back and every BEGIN after it failed.
 */
export function rollBack(db: DatabaseSync): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // No transaction was open: SQLite ended it, or none had begun.
  }
}

export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    // Exclusive before WAL, so that the WAL index lives in this process's memory rather than in a shared file.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 2000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    checkIntact(db, path);
    migrate(db, path);
    return db;
  } catch (error) {
    if (db?.isOpen) db.close();
    if (error instanceof StoreError) throw error;
    if (/database is locked|SQLITE_BUSY/i.test((error as Error).message)) {
      throw new StoreError(
        `the SQLite store ${path} is in use by another process (another mock?): a SQLite store serves one process. Stop the other one, give this one another --store sqlite:PATH, or share a Redis between several (--store redis://HOST:PORT)`,
      );
    }
    if (isDamage(error)) throw damaged(path, (error as Error).message);
    throw new StoreError(`cannot open the SQLite store ${path}: ${(error as Error).message}`);
  }
}

/**
 * SQLite's quick_check: every page read once and the structure of every table checked (not indexes against their
 * tables, which these have none of). Measured at 1 to 3 ms a MiB (26 ms for 10 MiB, 200 ms for 200 MiB), so a start
 * stays well under a second.
 */
function checkIntact(db: DatabaseSync, path: string): void {
  const found = (db.prepare('PRAGMA quick_check(3)').all() as Row[]).map((row) => String(row.quick_check));
  if (found.length !== 1 || found[0] !== 'ok') throw damaged(path, found.join('; '));
}

function damaged(path: string, problem: string): StoreError {
  return new StoreError(
    `the SQLite store ${path} is damaged (${problem}): its data cannot be trusted. Move it aside (mv ${path} ${path}.damaged) to start afresh, or pass another --store sqlite:PATH`,
  );
}

/**
 * The damage met while the mock runs, and what makes it serve again: a full reset, which makes the file again (see
 * remakeDatabase), or a restart once the file is moved aside (a start refuses a damaged file). Not a `quick_check`
 * that passes later: the damage does not heal, and with the file held EXCLUSIVE the check reads SQLite's page cache,
 * which may hold a page as it was before the bytes under it changed.
 */
export function damagedWhileRunning(path: string, problem: string): StoreDamaged {
  return new StoreDamaged(
    `the SQLite store ${path} is damaged (${problem}): its data cannot be trusted, so every request that needs the store is answered 503 until it is made again. A full reset (POST /_mock/reset without a partner's key) moves it aside as ${path}.damaged and starts a new file, keeping the mock's secrets; or stop the mock, move the file aside (mv ${path} ${path}.damaged) and start it again`,
  );
}

function migrate(db: DatabaseSync, path: string): void {
  // Inside the write lock: two mocks starting on a new file at once create the tables once.
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
    if (version !== schemaVersion) {
      const tables = Number((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as Row).n);
      if (version !== 0 || tables > 0) {
        throw new StoreError(
          `${path} holds a store of layout version ${version} (made by ${version < schemaVersion ? 'an older' : 'a newer'} mock), and this mock reads version ${schemaVersion}: move the file away (or delete it) to start afresh, or pass another --store sqlite:PATH`,
        );
      }
      db.exec('CREATE TABLE _counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID');
      db.exec(`PRAGMA user_version = ${schemaVersion}`);
    }
    db.exec('COMMIT');
  } catch (error) {
    rollBack(db);
    throw error;
  }
}

/** Whether the file passes quick_check now (after a reset emptied it: the pages left are few). */
export function isIntact(db: DatabaseSync): boolean {
  try {
    const found = db.prepare('PRAGMA quick_check(1)').all() as Row[];
    return found.length === 1 && found[0]?.quick_check === 'ok';
  } catch (error) {
    if (isDamage(error)) return false;
    throw error;
  }
}

/**
 * Closes a damaged file, moves it aside (`PATH.damaged`, replacing an earlier one) and opens a new one in its place,
 * into which the rows of the store tables `keep` and the counters are copied, as far as they can still be read: the
 * secrets, so that cursors, download URLs and webhook signatures stay valid; the counters, so that no number is
 * given twice.
 */
export function remakeDatabase(db: DatabaseSync, path: string, keep: readonly string[]): DatabaseSync {
  if (path === ':memory:') throw new StoreError('the in-memory SQLite store is damaged: start the mock again');
  const kept = new Map<string, Row[]>();
  for (const name of ['_counters', ...keep]) {
    try {
      kept.set(name, db.prepare(`SELECT * FROM ${name === '_counters' ? name : sqlTableName(name)}`).all() as Row[]);
    } catch {
      // Unreadable, or never made: started afresh.
    }
  }
  rollBack(db);
  try {
    db.close();
  } catch {
    // Closed already. (Asked rather than tried, isOpen is absent before Node 22.15.)
  }
  renameSync(path, `${path}.damaged`);
  for (const suffix of ['-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  const fresh = openDatabase(path);
  fresh.exec('BEGIN IMMEDIATE');
  try {
    for (const [name, rows] of kept) {
      if (name !== '_counters') createSqlTable(fresh, name);
      const sqlName = name === '_counters' ? name : sqlTableName(name);
      for (const row of rows) {
        const columns = Object.keys(row);
        fresh.prepare(`INSERT OR REPLACE INTO ${sqlName} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((column) => row[column] as SQLInputValue));
      }
    }
    fresh.exec('COMMIT');
  } catch (error) {
    rollBack(fresh);
    throw error;
  }
  return fresh;
}
