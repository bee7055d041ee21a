/**
 * The memory backend (`--store memory`): every table in this process's heap, nothing on disk, for tests and
 * throwaway runs. A transaction runs from its first read to its last write without yielding to anything else, so
 * it is atomic and isolated by construction; a restart forgets everything.
 */
import { emptied, Notices } from '../notices.ts';
import type { Store } from '../store.ts';
import { runNow, type Mode } from '../transaction.ts';
import { MemoryTables } from './memory-tables.ts';

export function openMemoryStore(options: { freeze?: boolean } = {}): Store {
  const tables = new MemoryTables(options);
  const notices = new Notices();
  const run = <T>(body: Parameters<Store['write']>[0], mode: Mode): Promise<T> => {
    try {
      const { value, tx } = runNow(body, tables, mode);
      tables.apply(tx.writes);
      tx.committed();
      notices.deliverOf(tx);
      return Promise.resolve(value as T);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  return {
    description: 'memory',
    read: (body) => run(body, 'read'),
    write: (body) => run(body, 'write'),
    hold: (body) => run(body, 'hold'),
    listen: (listener) => notices.listen(listener),
    async clear(keep) {
      tables.clear(new Set(keep.map((kept) => kept.name)));
      notices.deliver(emptied);
    },
    async close() {},
  };
}
