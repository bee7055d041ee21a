/**
 * The Redis store when its connection closes under a call: a read is sent again; a commit is neither sent again
 * nor run again (either could make it twice, or make it on what the process knew before the connection closed),
 * and fails as CommitOutcomeUnknown. While the connection is being made again, a call fails at once as
 * StoreUnavailable rather than waits; once it is back, the store goes on. The connection goes through a proxy in this test that can drop Redis's next
 * answer and close, as a network that fails at the worst moment does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../mock/store/open-store.ts';
import { CommitOutcomeUnknown, StoreUnavailable } from '../../../mock/store/store-error.ts';
import { table, type Store } from '../../../mock/store/store.ts';
import { onceStoreAnswers, redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';

const values = table<number>('connection_values');

/** A TCP proxy to Redis; `dropNextAnswer` lets the next command through, then closes before its answer reaches the client. */
interface Proxy {
  port: number;
  dropNextAnswer(): Promise<void>;
  close(): Promise<void>;
}

async function startProxy(target: number): Promise<Proxy> {
  let dropping: (() => void) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    client.on('data', (bytes) => upstream.write(bytes));
    upstream.on('data', (bytes) => {
      if (dropping) {
        const done = dropping;
        dropping = undefined;
        client.destroy();
        upstream.destroy();
        done();
        return;
      }
      client.write(bytes);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    dropNextAnswer: () => new Promise((resolve) => (dropping = resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!redisTestsEnabled())('the Redis store, its connection closed under a call', () => {
  let server: RedisServer;
  let proxy: Proxy;
  let store: Store;
  let direct: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    proxy = await startProxy(server.port);
    store = await openStore({ kind: 'redis', url: `redis://127.0.0.1:${proxy.port}/2` });
    direct = new Redis(`${server.url}/2`);
  });
  afterAll(async () => {
    direct.disconnect();
    await store.close();
    await proxy.close();
    await server.stop();
  });

  it('makes a commit whose answer was lost once, not again, and says its outcome is unknown', async () => {
    await store.write((tx) => tx.put(values, 'counter', 0));
    let runs = 0;
    const dropped = proxy.dropNextAnswer();
    // Settled as a value at once: it may fail before the test is ready to look at it.
    const increment = store
      .write((tx) => {
        runs += 1;
        tx.put(values, 'counter', (tx.get(values, 'counter') ?? 0) + 1);
      })
      .then(
        () => 'made',
        (error: unknown) => error,
      );
    await dropped;
    expect(await increment).toBeInstanceOf(CommitOutcomeUnknown);
    expect(runs).toBe(1);
    expect(await direct.hget(`pfm:t:${values.name}`, 'counter')).toBe('1');
    // Not while the connection is being made again: at once, not held until it is back.
    const startedAt = Date.now();
    await expect(store.read((tx) => tx.get(values, 'counter'))).rejects.toBeInstanceOf(StoreUnavailable);
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    // The store goes on once the connection is back.
    await onceStoreAnswers(() => store.write((tx) => tx.put(values, 'counter', (tx.get(values, 'counter') ?? 0) + 1)));
    expect(await store.read((tx) => tx.get(values, 'counter'))).toBe(2);
  });

  it('sends a read again', async () => {
    await onceStoreAnswers(() => store.write((tx) => tx.put(values, 'read', 7)));
    const other = await openStore({ kind: 'redis', url: `redis://127.0.0.1:${proxy.port}/2` });
    try {
      // A store that knows nothing yet fetches: the fetch's answer is dropped, and the fetch sent again.
      const dropped = proxy.dropNextAnswer();
      const read = other.read((tx) => tx.get(values, 'read'));
      await dropped;
      expect(await read).toBe(7);
    } finally {
      await other.close();
    }
  });
});
