/**
 * The store backends as the conformance suite opens them: each can open a store; Redis, which several
 * processes share, a second store on the same data at the same time (another process, as far as it can tell); and
 * SQLite and Redis, whose data outlives the process, the same data again after a close. Each is opened as the
 * records of every feature on it (records.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStore } from '../../../mock/store/memory/memory-store.ts';
import { openStore } from '../../../mock/store/open-store.ts';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { newRemoteData, openRemoteStore } from '../../support/remote-store.ts';
import { defaultRecordOptions, recordsOn, type RecordOptions, type Records } from './records.ts';

export interface Backend {
  name: 'memory' | 'sqlite' | 'redis' | 'remote';
  /** Whether it runs here (Redis needs redis-server). */
  enabled: boolean;
  /** Once per file. */
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** A store on fresh, empty data. */
  open(options?: Partial<RecordOptions>): Promise<Records>;
  /** Another store on the data of the last `open`, open at the same time (another connection). */
  openSecond?(options?: Partial<RecordOptions>): Promise<Records>;
  /** The data of the last `open` again, after that store was closed; absent where nothing outlives a close. */
  reopen?(options?: Partial<RecordOptions>): Promise<Records>;
}

const withDefaults = (options: Partial<RecordOptions> = {}): RecordOptions => ({ ...defaultRecordOptions, ...options });

export function memoryBackend(): Backend {
  return {
    name: 'memory',
    enabled: true,
    async setUp() {},
    async tearDown() {},
    async open(options) {
      // Frozen: a rule that changed a value once written would throw here instead of corrupting the store.
      return recordsOn(openMemoryStore({ freeze: true }), withDefaults(options));
    },
  };
}

export function sqliteBackend(): Backend {
  let dir = '';
  let file = '';
  let count = 0;
  return {
    name: 'sqlite',
    enabled: true,
    async setUp() {
      dir = mkdtempSync(join(tmpdir(), 'store-sqlite-'));
    },
    async tearDown() {
      rmSync(dir, { recursive: true, force: true });
    },
    async open(options) {
      file = join(dir, `state-${(count += 1)}.db`);
      return recordsOn(await openStore({ kind: 'sqlite', path: file }), withDefaults(options));
    },
    async reopen(options) {
      return recordsOn(await openStore({ kind: 'sqlite', path: file }), withDefaults(options));
    },
  };
}

export function redisBackend(): Backend {
  let server: RedisServer | undefined;
  let database = 0;
  const enabled = redisTestsEnabled();
  const url = () => `${(server as RedisServer).url}/${database}`;
  return {
    name: 'redis',
    enabled,
    async setUp() {
      server = await startRedisServer();
    },
    async tearDown() {
      await server?.stop();
    },
    async open(options) {
      // A database per store, emptied first: tests never see each other's data.
      database = (database + 1) % 16;
      const records = recordsOn(await openStore({ kind: 'redis', url: url() }), withDefaults(options));
      await records.reset();
      return records;
    },
    async openSecond(options) {
      return recordsOn(await openStore({ kind: 'redis', url: url() }), withDefaults(options));
    },
    async reopen(options) {
      return recordsOn(await openStore({ kind: 'redis', url: url() }), withDefaults(options));
    },
  };
}

/**
 * The optimistic runner Redis uses, over a fake remote in this process (tests/support/remote-store.ts): every read a
 * round trip, every commit checking versions. It runs where redis-server is missing, and shares its data between
 * stores as Redis does.
 */
export function remoteBackend(): Backend {
  let data = newRemoteData();
  const open = (options?: Partial<RecordOptions>) => recordsOn(openRemoteStore({ data, latencyMs: 0 }), withDefaults(options));
  return {
    name: 'remote',
    enabled: true,
    async setUp() {},
    async tearDown() {},
    async open(options) {
      data = newRemoteData();
      return open(options);
    },
    openSecond: async (options) => open(options),
    reopen: async (options) => open(options),
  };
}

export const allBackends = (): Backend[] => [memoryBackend(), sqliteBackend(), redisBackend(), remoteBackend()];
