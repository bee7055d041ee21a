/**
 * `--store`: which backend keeps the mock's state.
 *   sqlite:PATH     the default (sqlite:.mock-data/state.db): one file, survives restarts
 *   memory          nothing on disk: tests and throwaway runs
 *   redis://HOST:PORT[/DB]   several mock processes share one Redis and serve the same partners
 */
import { resolve } from 'node:path';
import { openMemoryStore } from './memory/memory-store.ts';
import { StoreError } from './store-error.ts';
import { maskStoreUrl } from './store-url.ts';
import type { Store } from './store.ts';

export { maskStoreUrl } from './store-url.ts';

export type StoreSpec = { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'redis'; url: string };

export const defaultStoreSpec = 'sqlite:.mock-data/state.db';

/** Whether other processes may write the same data: then work they schedule is found by looking, not by being told. */
export function isShared(spec: StoreSpec): boolean {
  return spec.kind === 'redis';
}

/** Reads a `--store` value; a relative SQLite path is taken from `cwd`. Throws a StoreError that says what is accepted. */
export function parseStoreSpec(raw: string, cwd = process.cwd()): StoreSpec {
  if (raw === 'memory') return { kind: 'memory' };
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length);
    if (path === '') throw new StoreError('--store sqlite: needs a file path, as in sqlite:.mock-data/state.db');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(cwd, path) };
  }
  if (raw.startsWith('redis://') || raw.startsWith('rediss://')) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new StoreError(`--store ${JSON.stringify(maskStoreUrl(raw))} is not a valid redis:// URL`);
    }
    const db = url.pathname.replace(/^\//, '');
    if (db !== '' && !/^\d{1,2}$/.test(db)) throw new StoreError(`--store: the Redis database must be a number, as in redis://localhost:6379/0; got ${JSON.stringify(db)}`);
    return { kind: 'redis', url: raw };
  }
  throw new StoreError(`--store must be memory, sqlite:PATH or redis://HOST:PORT[/DB]; got ${JSON.stringify(maskStoreUrl(raw))}`);
}

export async function openStore(spec: StoreSpec): Promise<Store> {
  switch (spec.kind) {
    case 'memory':
      return openMemoryStore();
    case 'sqlite': {
      // Loaded only when used: node:sqlite is not there before Node 22.13.
      const sqlite = await import('./sqlite/sqlite-store.ts').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ERR_UNKNOWN_BUILTIN_MODULE') throw error;
        throw new StoreError(
          `the SQLite store needs Node 22.13 or newer (it uses node:sqlite), and this is Node ${process.versions.node}: run it on Node 22.13 or newer (24 recommended), or pass --store memory`,
        );
      });
      return sqlite.openSqliteStore(spec.path);
    }
    case 'redis': {
      const { openRedisStore } = await import('./redis/redis-store.ts');
      return openRedisStore(spec.url);
    }
  }
}

