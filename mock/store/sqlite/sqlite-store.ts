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
 *
 * A damaged file is refused at start. Once a transaction meets a damaged page while the mock runs, every
 * transaction fails with that damage (StoreDamaged, answered 503 naming it), reads that would miss the page as much
 * as those that meet it: the file's data cannot be trusted, as at start. A full reset makes the file again (see
 * sqlite-file.ts).
 */
import type { DatabaseSync } from 'node:sqlite';
import { StoreError, type StoreDamaged } from '../store-error.ts';
import { emptied as everyChannel, Notices } from '../notices.ts';
import type { Store, TxBody } from '../store.ts';
import { runNow, type Transaction } from '../transaction.ts';
import { damagedWhileRunning, isDamage, isIntact, openDatabase, remakeDatabase, rollBack } from './sqlite-file.ts';
import { SqliteSource } from './sqlite-source.ts';

export { schemaVersion } from './sqlite-file.ts';

interface Waiting {
  body: TxBody<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function openSqliteStore(path: string): Store {
  let db = openDatabase(path);
  let source = new SqliteSource(db);
  let waiting: Waiting[] = [];
  let committing: Promise<void> | undefined;
  /** The damage met, which every transaction fails with until a full reset. */
  let damage: StoreDamaged | undefined;
  const notices = new Notices();
  const met = (error: unknown): StoreDamaged => (damage ??= damagedWhileRunning(path, (error as Error).message));

  const commitWaiting = () => {
    committing = undefined;
    const batch = waiting;
    waiting = [];
    const outcomes = damage ? batch.map(() => ({ ok: false as const, error: damage })) : commitGroup(db, source, batch, met, notices);
    batch.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index] as Outcome;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  };

  const runAtOnce = <T>(body: TxBody<T>, mode: 'read' | 'hold'): Promise<T> => {
    if (damage) return Promise.reject(damage);
    try {
      const { value, tx } = runNow(body, source, mode);
      source.applyEphemeral(tx);
      tx.committed();
      notices.deliverOf(tx);
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(isDamage(error) ? met(error) : (error as Error));
    }
  };

  return {
    description: `sqlite:${path}`,
    read: (body) => runAtOnce(body, 'read'),
    hold: (body) => runAtOnce(body, 'hold'),
    listen: (listener) => notices.listen(listener),
    write: <T>(body: TxBody<T>) =>
      new Promise<T>((resolve, reject) => {
        waiting.push({ body, resolve: resolve as (value: unknown) => void, reject });
        committing ??= new Promise<void>((done) => setImmediate(() => done(commitWaiting())));
      }),
    async clear(keep) {
      await committing;
      const kept = keep.map((table) => table.name);
      if (!damage && emptied(db, source, kept)) return notices.deliver(everyChannel);
      // Damaged (met before, or while emptying it): a reset is how a damaged store is recovered from, so the file is
      // made again.
      db = remakeDatabase(db, path, kept);
      source = new SqliteSource(db);
      damage = undefined;
      notices.deliver(everyChannel);
    },
    async close() {
      await committing;
      if (db.isOpen) db.close();
    },
  };
}

/**
 * Empties every table but those kept; false when the file is damaged (met while emptying it, or found by the check
 * after it, which is quick on a file just emptied).
 */
function emptied(db: DatabaseSync, source: SqliteSource, kept: readonly string[]): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    source.clear(new Set(kept));
    db.exec('COMMIT');
    return isIntact(db);
  } catch (error) {
    rollBack(db);
    settleSource(source);
    if (!isDamage(error)) throw new StoreError(`the SQLite store could not be emptied: ${(error as Error).message}`, { cause: error });
    return false;
  }
}

type Outcome = { ok: true; value: unknown; tx: Transaction } | { ok: false; error: unknown };

/**
 * One commit of every transaction waiting, each in its savepoint; the commit failing fails them all, as does a
 * transaction meeting a damaged page, which is reported as `met` makes it.
 */
function commitGroup(db: DatabaseSync, source: SqliteSource, batch: readonly Waiting[], met: (error: unknown) => StoreDamaged, notices: Notices): Outcome[] {
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
        // A damaged page fails the group: no transaction is committed on a file known to be damaged.
        if (isDamage(error)) throw error;
        try {
          db.exec('ROLLBACK TO one_write');
          db.exec('RELEASE one_write');
        } catch {
          // SQLite rolled the whole transaction back by itself (a full disk, an I/O error, a damaged page): there is
          // no savepoint to go back to, and the group fails for the reason it did.
          throw error;
        }
        source.undoTo(mark);
        outcomes.push({ ok: false, error });
      }
    }
    db.exec('COMMIT');
    source.committed();
    for (const outcome of outcomes) {
      if (!outcome.ok) continue;
      outcome.tx.committed();
      notices.deliverOf(outcome.tx);
    }
    return outcomes;
  } catch (error) {
    // The commit itself failed: nothing of the group was written, no transaction is left open, and what this process
    // keeps beside the file (caches, ephemeral tables) is put back as the file has it.
    rollBack(db);
    settleSource(source);
    const failure = isDamage(error) ? met(error) : new StoreError(`the SQLite store could not write: ${(error as Error).message}`, { cause: error });
    return batch.map(() => ({ ok: false, error: failure }));
  }
}

/**
 * Puts what the source keeps back as the file has it, after a rollback. A file that cannot even be read for that
 * is left to the next transaction to meet: the failure being reported is the one that matters.
 */
function settleSource(source: SqliteSource): void {
  try {
    source.rolledBack();
  } catch {
    // See above.
  }
}
