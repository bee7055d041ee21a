/**
 * Hints (mock/store/hints.ts): a store shared by processes (Redis, and the fake remote that stands for it) runs a
 * body first on what this process last knew, and commits it when the commit finds every key at the version read
 * and every range as read. Two stores opened on the same data are two processes: B learns something, A changes
 * it, and B must then act on A's change, never on its hint. Also what a hint saves: the round trips.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { within } from '../../../mock/store/keys.ts';
import { openStore } from '../../../mock/store/open-store.ts';
import { CommitOutcomeUnknown } from '../../../mock/store/store-error.ts';
import { table, type Store } from '../../../mock/store/store.ts';
import { onceStoreAnswers, redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { newRemoteData, openRemoteStore, type RemoteData } from '../../support/remote-store.ts';

const values = table<number>('hint_values');
const items = table<string>('hint_items', { ordered: true });
const seen = table<string>('hint_seen');

interface Shared {
  /** Two stores on the same data: two processes. */
  open(): Promise<{ a: Store; b: Store }>;
  /** Loses every key and the version clock, as a Redis restarted without persistence does. */
  wipe(): Promise<void>;
}

const remote = (): Shared => {
  let data: RemoteData = newRemoteData();
  return {
    async open() {
      data = newRemoteData();
      return { a: openRemoteStore({ data, latencyMs: 0 }), b: openRemoteStore({ data, latencyMs: 0 }) };
    },
    async wipe() {
      data.tables.clear();
      data.counters.clear();
      data.clock = 0;
    },
  };
};

let server: RedisServer | undefined;
let database = 0;
const opened: Store[] = [];
const redis = (): Shared => ({
  async open() {
    database = (database + 1) % 16;
    const url = `${(server as RedisServer).url}/${database}`;
    const client = new Redis(url);
    await client.flushdb();
    client.disconnect();
    const a = await openStore({ kind: 'redis', url });
    const b = await openStore({ kind: 'redis', url });
    opened.push(a, b);
    return { a, b };
  },
  async wipe() {
    const client = new Redis(`${(server as RedisServer).url}/${database}`);
    await client.flushdb();
    client.disconnect();
  },
});

beforeAll(async () => {
  if (redisTestsEnabled()) server = await startRedisServer();
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await server?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  { name: 'the fake remote', shared: remote, enabled: true },
  { name: 'Redis', shared: redis, enabled: redisTestsEnabled() },
])('on $name, a process that holds hints', ({ shared, enabled }) => {
  const it_ = it.skipIf(!enabled);

  it_('acts on a key another process changed since, not on its hint', async () => {
    const { a, b } = await shared().open();
    await a.write((tx) => tx.put(values, 'k', 1));
    expect(await b.read((tx) => tx.get(values, 'k'))).toBe(1);
    await a.write((tx) => tx.put(values, 'k', 10));
    // B adds one to what it reads: on its hint it would write 2.
    await b.write((tx) => tx.put(values, 'k', (tx.get(values, 'k') ?? 0) + 1));
    expect(await a.read((tx) => tx.get(values, 'k'))).toBe(11);
    // A read on the hint is checked too.
    await a.write((tx) => tx.put(values, 'k', 20));
    expect(await b.read((tx) => tx.get(values, 'k'))).toBe(20);
  });

  it_('acts on a range another process added to or removed from since, not on its hint', async () => {
    const { a, b } = await shared().open();
    await a.write((tx) => tx.put(items, 'i1', 'one'));
    const list = (store: Store) => store.read((tx) => tx.scan(items, within([], { limit: 10 })).map((entry) => entry.value).join(','));
    expect(await list(b)).toBe('one');
    await a.write((tx) => tx.put(items, 'i2', 'two'));
    // B writes what it sees of the range: on its hint, only "one".
    const record = () => b.write((tx) => tx.put(seen, 'range', tx.scan(items, within([], { limit: 10 })).map((entry) => entry.value).join(',')));
    await record();
    expect(await a.read((tx) => tx.get(seen, 'range'))).toBe('one,two');
    await a.write((tx) => tx.delete(items, 'i1'));
    await record();
    expect(await a.read((tx) => tx.get(seen, 'range'))).toBe('two');
    await a.write((tx) => tx.put(items, 'i2', 'deux'));
    expect(await list(b)).toBe('deux');
  });

  it_('takes no hint from before the store lost its data for a value written after', async () => {
    const data = shared();
    const { a, b } = await data.open();
    await a.write((tx) => tx.put(values, 'k', 1));
    expect(await b.read((tx) => tx.get(values, 'k'))).toBe(1);
    await data.wipe();
    // A restart takes far longer than this; the version clock starts again from the time of day.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await a.write((tx) => tx.put(values, 'k', 100));
    await b.write((tx) => tx.put(values, 'k', (tx.get(values, 'k') ?? 0) + 1));
    expect(await a.read((tx) => tx.get(values, 'k'))).toBe(101);
  });

  it_('takes no hint for a snapshot read, which the commit does not check: it reads what is there now', async () => {
    const { a, b } = await shared().open();
    await a.write((tx) => tx.put(values, 'k', 1));
    await a.write((tx) => tx.put(items, 'i1', 'one'));
    const snapshot = () => b.write((tx) => tx.put(seen, 'b', `${tx.get(values, 'k', { snapshot: true })} ${tx.scan(items, within([], { limit: 5 }), { snapshot: true }).length}`));
    await snapshot();
    expect(await b.read((tx) => tx.get(seen, 'b'))).toBe('1 1');
    await a.write((tx) => {
      tx.put(values, 'k', 2);
      tx.put(items, 'i2', 'two');
    });
    await snapshot();
    expect(await b.read((tx) => tx.get(seen, 'b'))).toBe('2 2');
  });

  it_('takes a hint for a recent read only while it is young', async () => {
    const { a, b } = await shared().open();
    await a.write((tx) => tx.put(values, 'k', 1));
    const recent = () => b.read((tx) => tx.get(values, 'k', { snapshot: true, recent: true }));
    expect(await recent()).toBe(1);
    await a.write((tx) => tx.put(values, 'k', 2));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1_500 });
    expect(await recent()).toBe(2);
  });
});

describe.skipIf(!redisTestsEnabled())('on Redis, a process whose connection closed', () => {
  it('forgets its hints: a Redis put in its place may give a version again, with another value', async () => {
    const { a, b } = await redis().open();
    await a.write((tx) => tx.put(values, 'k', 1));
    expect(await b.read((tx) => tx.get(values, 'k'))).toBe(1);
    const client = new Redis(`${(server as RedisServer).url}/${database}`);
    try {
      // A replica promoted after missing a write holds another value at the version B knows.
      const version = await client.hget(`pfm:v:${values.name}`, 'k');
      await client.hset(`pfm:t:${values.name}`, 'k', '50');
      expect(await client.hget(`pfm:v:${values.name}`, 'k')).toBe(version);
      await client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    } finally {
      client.disconnect();
    }
    // B has seen its connection close and opened another.
    expect(await onceStoreAnswers(() => b.read((tx) => tx.get(values, 'other')))).toBeUndefined();
    await onceStoreAnswers(() => b.write((tx) => tx.put(values, 'k', (tx.get(values, 'k') ?? 0) + 1)));
    expect(await onceStoreAnswers(() => a.read((tx) => tx.get(values, 'k')))).toBe(51);
  });

  it('never makes a commit on its hints on the server that answers after the connection closed', async () => {
    const { a, b } = await redis().open();
    await a.write((tx) => tx.put(values, 'k', 1));
    expect(await b.read((tx) => tx.get(values, 'k'))).toBe(1);
    const client = new Redis(`${(server as RedisServer).url}/${database}`);
    try {
      await client.hset(`pfm:t:${values.name}`, 'k', '50');
      // B's commit, made on its hint, is held by the server until the connection closes under it.
      await client.call('CLIENT', 'PAUSE', '3000', 'WRITE');
      // Settled as a value at once: it may fail before the test is ready to look at it.
      const increment = b.write((tx) => tx.put(values, 'k', (tx.get(values, 'k') ?? 0) + 1)).then(
        () => 'made',
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      await client.call('CLIENT', 'UNPAUSE');
      expect(await increment).toBeInstanceOf(CommitOutcomeUnknown);
      expect(await client.hget(`pfm:t:${values.name}`, 'k')).toBe('50');
    } finally {
      client.disconnect();
    }
    await onceStoreAnswers(() => b.write((tx) => tx.put(values, 'k', (tx.get(values, 'k') ?? 0) + 1)));
    expect(await onceStoreAnswers(() => a.read((tx) => tx.get(values, 'k')))).toBe(51);
  });
});

describe('what hints save', () => {
  it('a body that reads what this process read before, and writes, is one round trip: the commit', async () => {
    const store = openRemoteStore({ latencyMs: 0 });
    await store.write((tx) => {
      tx.put(values, 'customer', 7);
      tx.put(items, 'company-1', 'c1');
    });
    // Reads that depend on each other: a key, then a range it names, then a key in that range.
    const body = (n: number) => (tx: Parameters<Parameters<Store['write']>[0]>[0]) => {
      const customer = tx.get(values, 'customer');
      const companies = customer === undefined ? [] : tx.scan(items, within([], { limit: 5 }));
      tx.put(seen, `request-${n}`, `${customer}:${companies.map((entry) => entry.value).join(',')}`);
    };
    await store.write(body(1));
    const before = store.roundTrips;
    await store.write(body(2));
    expect(store.roundTrips - before).toBe(1);
    expect(await store.read((tx) => tx.get(seen, 'request-2'))).toBe('7:c1');
  });
});
