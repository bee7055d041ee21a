/**
 * The SQLite backend (`--store sqlite:PATH`, the default): one file, no server, Node's built-in `node:sqlite`. The
 * file is in WAL mode with `synchronous = NORMAL`: a commit survives the mock being killed (only a power loss can
 * take the last ones back). node:sqlite answers synchronously, so a transaction runs from its first read to its
 * last write without anything interleaving.
 *
 * One process owns the file (`locking_mode = EXCLUSIVE`): a second mock on the same file is refused at start with
 * a message pointing to Redis. Owning it lets this process keep the ephemeral tables (leases) in memory and keep a
 * cache of what requests read (sqlite-source.ts), at no risk of reading stale data.
 *
 * Writes are committed together when asked for in the same turn of the event loop (group commit): a commit costs
 * far more than the statements in it, and the requests a busy mock handles at once share one. Each transaction runs
 * in a savepoint of its own, so one that fails undoes only itself; its promise settles once the commit is done, so
 * an answer is never sent before what it says is on disk.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { StoreError } from '../store-error.ts';
import type { Store, TxBody } from '../store.ts';
import { runNow, type Transaction } from '../transaction.ts';
import { SqliteSource } from './sqlite-source.ts';

/** The layout of the file; a file of another version is refused (see migrate). */
export const schemaVersion = 5;

interface Waiting {
  body: TxBody<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function openSqliteStore(path: string): Store {
  const db = openDatabase(path);
  const source = new SqliteSource(db);
  let waiting: Waiting[] = [];
  let committing: Promise<void> | undefined;

  const commitWaiting = () => {
    committing = undefined;
    const batch = waiting;
    waiting = [];
    const outcomes = commitGroup(db, source, batch);
    batch.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  };

  const runAtOnce = <T>(body: TxBody<T>, mode: 'read' | 'hold'): Promise<T> => {
    try {
      const { value, tx } = runNow(body, source, mode);
      source.applyEphemeral(tx);
      tx.committed();
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };

  return {
    description: `sqlite:${path}`,
    read: (body) => runAtOnce(body, 'read'),
    hold: (body) => runAtOnce(body, 'hold'),
    write: <T>(body: TxBody<T>) =>
      new Promise<T>((resolve, reject) => {
        waiting.push({ body, resolve: resolve as (value: unknown) => void, reject });
        committing ??= new Promise<void>((done) => setImmediate(() => done(commitWaiting())));
      }),
    async clear(keep) {
      await committing;
      db.exec('BEGIN IMMEDIATE');
      try {
        source.clear(new Set(keep.map((table) => table.name)));
        db.exec('COMMIT');
      } catch (error) {
        if (db.isTransaction) db.exec('ROLLBACK');
        source.rolledBack();
        throw new StoreError(`the SQLite store could not be emptied: ${(error as Error).message}`, { cause: error });
      }
    },
    async close() {
      await committing;
      if (db.isOpen) db.close();
    },
  };
}

type Outcome = { ok: true; value: unknown; tx: Transaction } | { ok: false; error: unknown };

/** One commit of every transaction waiting, each in its savepoint; the commit failing fails them all. */
function commitGroup(db: DatabaseSync, source: SqliteSource, batch: readonly Waiting[]): Outcome[] {
  const outcomes: Outcome[] = [];
  try {
    db.exec('BEGIN IMMEDIATE');
    for (const { body } of batch) {
      db.exec('SAVEPOINT one_write');
      const mark = source.mark();
      try {
        const { value, tx } = runNow(body, source, 'write');
        source.apply(tx);
        db.exec('RELEASE one_write');
        outcomes.push({ ok: true, value, tx });
      } catch (error) {
        db.exec('ROLLBACK TO one_write');
        db.exec('RELEASE one_write');
        source.undoTo(mark);
        outcomes.push({ ok: false, error });
      }
    }
    db.exec('COMMIT');
    source.committed();
    for (const outcome of outcomes) if (outcome.ok) outcome.tx.committed();
    return outcomes;
  } catch (error) {
    // The commit itself failed (a full disk): nothing of the group was written, and what this process keeps beside
    // the file (caches, ephemeral tables) is put back as the file has it.
    if (db.isTransaction) db.exec('ROLLBACK');
    source.rolledBack();
    const failure = new StoreError(`the SQLite store could not write: ${(error as Error).message}`, { cause: error });
    return batch.map(() => ({ ok: false, error: failure }));
  }
}

function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    // Exclusive before WAL, so that the WAL index lives in this process's memory rather than in a shared file.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA busy_timeout = 2000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
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
    throw new StoreError(`cannot open the SQLite store ${path}: ${(error as Error).message}`);
  }
}

function migrate(db: DatabaseSync, path: string): void {
  // Inside the write lock: two mocks starting on a new file at once create the tables once.
  db.exec('BEGIN IMMEDIATE');
  try {
    const version = Number((db.prepare('PRAGMA user_version').get() as Record<string, SQLInputValue>).user_version);
    if (version !== schemaVersion) {
      const tables = Number((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as Record<string, SQLInputValue>).n);
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
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
