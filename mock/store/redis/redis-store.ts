/**
 * The Redis backend (`--store redis://HOST:PORT[/DB]`): several mock processes share one Redis and serve the same
 * partners. A transaction reads through generic scripts that return each value with its version, and commits
 * through one script that first checks that none of those versions changed (optimistic concurrency, as Redis's own
 * WATCH does, but without holding a connection per transaction); on a change, the transaction runs again with what
 * is there now. The key layout is described in redis-scripts.ts.
 */
import { ReplyError, type Redis } from 'ioredis';
import type { KeyRange } from '../keys.ts';
import { CommitOutcomeUnknown, StoreError, StoreUnavailable } from '../store-error.ts';
import { emptied } from '../notices.ts';
import type { Store, Table } from '../store.ts';
import { Hints, runOptimistic, type Commit, type RemoteSource } from '../optimistic.ts';
import type { RangeRead, TableReads, Versioned, VersionedEntry, Write } from '../transaction.ts';
import { closeRedis, connectRedis, describeRedisUrl } from './connection.ts';
import { RedisNotices } from './redis-notices.ts';
import { clearLua, commitLua, fetchLua } from './redis-scripts.ts';

/** The version of the key layout, kept in the database (`pfm:layout`): data of another layout is refused. */
export const layoutVersion = '4';

type Call = (command: string, args: readonly (string | number | Buffer)[]) => Promise<unknown>;

export async function openRedisStore(url: string): Promise<Store> {
  const description = describeRedisUrl(url);
  const client = await connectRedis(url, description);
  try {
    await checkLayoutVersion(client, description);
  } catch (error) {
    await closeRedis(client);
    throw error;
  }
  for (const [name, lua] of Object.entries({ kvFetch: fetchLua, kvCommit: commitLua, kvClear: clearLua })) {
    client.defineCommand(name, { numberOfKeys: 0, lua });
  }
  const { call, shutdown } = guardedCalls(client, description);
  const source = redisSource(call);
  const commit = redisCommit(call);
  const hints = new Hints();
  const notices = new RedisNotices(client);
  // A connection lost may be a Redis restarted, or another one promoted in its place that missed the last writes
  // and gives their versions again: what this process knew is forgotten rather than checked against them.
  client.on('close', () => hints.clear());
  return {
    description,
    read: (body) => runOptimistic(body, source, commit, 'read', description, hints, notices),
    write: (body) => runOptimistic(body, source, commit, 'write', description, hints, notices),
    hold: (body) => runOptimistic(body, source, commit, 'hold', description, hints, notices),
    async clear(keep) {
      hints.clear();
      await call('kvClear', keep.map((table) => table.name));
      notices.deliverOf({ notices: emptied });
    },
    listen: (listener) => notices.listen(listener),
    close: () => {
      notices.close();
      return shutdown(() => closeRedis(client));
    },
  };
}

function redisSource(call: Call): RemoteSource {
  return {
    async fetch({ gets, scans, allocations }) {
      const args: (string | number)[] = [gets.length];
      for (const { table, key } of gets) args.push(table.name, key);
      args.push(scans.length);
      for (const { table, range } of scans) args.push(...rangeArgs(table, range));
      args.push(allocations.length);
      for (const { counter, count } of allocations) args.push(counter, count);
      const reply = (await call('kvFetchBuffer', args)) as (Buffer | number | null)[];
      let at = 0;
      const values = gets.map(({ table }): Versioned | undefined => {
        const [value, version] = [reply[at], reply[at + 1]];
        at += 2;
        return value === null || value === undefined ? undefined : { value: decode(table, value as Buffer), version: Number(version) };
      });
      const ranges = scans.map(({ table }) => {
        const entries: VersionedEntry[] = [];
        const count = Number(reply[at]);
        at += 1;
        for (let i = 0; i < count; i += 1, at += 3) {
          // A key listed without its value would be a half-written table: skipped rather than read as null.
          if (reply[at + 1] === null) continue;
          entries.push({ key: (reply[at] as Buffer).toString('utf8'), value: decode(table, reply[at + 1] as Buffer), version: Number(reply[at + 2]) });
        }
        return entries;
      });
      const firsts = allocations.map(({ count }) => Number(reply[at++]) - count + 1);
      return { values, ranges, firsts };
    },
  };
}

function redisCommit(call: Call): Commit {
  return async (reads: ReadonlyMap<string, TableReads>, ranges: readonly RangeRead[], writes: readonly Write[]) => {
    const args: (string | number | Buffer)[] = [];
    let checks = 0;
    for (const { table, versions } of reads.values()) {
      for (const [key, version] of versions) {
        args.push(table.name, key, String(version));
        checks += 1;
      }
    }
    // The version clock's start should Redis have none (see commitLua): the time of day in microseconds.
    args.unshift(Date.now() * 1000, checks);
    args.push(ranges.length);
    for (const { table, range, entries } of ranges) {
      args.push(...rangeArgs(table, range), entries.length);
      for (const entry of entries) args.push(entry.key, String(entry.version ?? 0));
    }
    const writeArgs: (string | number | Buffer)[] = [];
    for (const write of writes) {
      const { table } = write;
      const value = write.kind === 'put' ? encode(table, write.value) : write.kind === 'add' ? write.delta : '';
      writeArgs.push(write.kind === 'put' ? 'p' : write.kind === 'delete' ? 'd' : 'a', table.name, table.ordered ? '1' : '0', write.key, value);
    }
    args.push(writeArgs.length / 5, ...writeArgs);
    const reply = (await call('kvCommit', args)) as number | number[];
    if (!Array.isArray(reply)) return false;
    const [, version, ...sums] = reply;
    return { version: Number(version), sums: sums.map(Number) };
  };
}

/** A range as both scripts take it: table low high reverse (1/0) limit. */
function rangeArgs(table: Table<unknown>, range: KeyRange): (string | number)[] {
  return [table.name, range.low, range.high, range.reverse ? 1 : 0, range.limit];
}

function encode(table: Table<unknown>, value: unknown): string | Buffer {
  if (table.bytes) {
    const bytes = value as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return JSON.stringify(value);
}

function decode(table: Table<unknown>, stored: Buffer): unknown {
  // A copy, so that the value never pins the connection's read buffer.
  if (table.bytes) return new Uint8Array(stored);
  return JSON.parse(stored.toString('utf8'));
}

/** Times a read is sent again after the connection closed under it. */
const resends = 2;
/**
 * How long a read lost to a closed connection waits for the next one, to be sent again there: a blip (a connection
 * reset, Redis restarted) is hidden; an outage is answered as one within about a second.
 */
const resendWithinMs = 1_000;
/**
 * How long a call may wait for Redis's answer before the connection is taken for dead. A Redis stopped, or cut off
 * by a network that drops packets, keeps the connection open: without a bound a call would wait until TCP gives up,
 * a quarter of an hour. Past it the connection is closed and made again, so its calls fail as on any closed
 * connection (a read is sent again on the next one, a commit's outcome is unknown) and the mock answers 503. Redis
 * answers these scripts in milliseconds; clearing the whole store (a reset) may take longer on a large database.
 */
const answerWithinMs = 3_000;
const clearWithinMs = 60_000;

/**
 * Every call to Redis, with failures named after the store (never its password), and a shutdown that refuses new
 * calls, closes the connection, then fails the calls still waiting: during an outage ioredis would leave them
 * pending for ever. A call sent when the connection closes (ioredis does not send it again, see connection.ts) is
 * sent again when it only reads (a fetch may take numbers from a counter again: a counter may skip numbers), and
 * failed as `CommitOutcomeUnknown` when it is a commit. While the connection is down, a call fails at once as
 * `StoreUnavailable`, with the connection's last error (`connect ECONNREFUSED …`) as its cause; a read lost to the
 * connection closing waits for the next one a second at most.
 */
function guardedCalls(client: Redis, description: string): { call: Call; shutdown: (disconnect: () => Promise<void>) => Promise<void> } {
  const commands = client as unknown as Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;
  interface Waiting {
    /** Whether it was written on the connection (else it waits in ioredis's queue for the next one). */
    written: boolean;
    /** When it was sent, and when it must have been answered (`Date.now()` clock). */
    startedAt: number;
    deadline: number;
    fail(error: Error): void;
    lost(): void;
  }
  const waiting = new Set<Waiting>();
  let lastError: Error | undefined;
  client.on('error', (error: Error) => {
    lastError = error;
  });
  // ioredis writes what it queued meanwhile as soon as a connection is ready.
  client.on('ready', () => {
    lastError = undefined;
    for (const entry of waiting) entry.written = true;
  });
  const unavailable = () => new StoreUnavailable(`the Redis store ${description} is unavailable: ${lastError?.message ?? 'its connection closed'}`, { cause: lastError });
  const readySoon = sharedReadyWait(client);
  client.on('close', () => {
    for (const entry of [...waiting]) if (entry.written) entry.lost();
  });
  const sweep = closeWhenSilent(client, waiting, (error) => (lastError = error));
  let closing: Promise<void> | undefined;
  const call: Call = (command, args) => {
    const run = commands[command];
    if (!run) return Promise.reject(new StoreError(`the Redis store has no command ${command}`));
    const send = (resendsLeft: number): Promise<unknown> => {
      if (closing) return Promise.reject(new StoreError(`the Redis store ${description} is closed`));
      if (client.status !== 'ready') return Promise.reject(unavailable());
      return new Promise((resolve, reject) => {
        const startedAt = Date.now();
        const entry: Waiting = {
          written: client.status === 'ready',
          startedAt,
          deadline: startedAt + (command === 'kvClear' ? clearWithinMs : answerWithinMs),
          fail(error) {
            if (!waiting.delete(entry)) return;
            // Refused by Redis itself (a script's error), or by the client because the connection went meanwhile.
            if (error instanceof ReplyError) reject(new StoreError(`the Redis store ${description} failed: ${error.message}`, { cause: error }));
            else reject(unavailable());
          },
          lost() {
            if (!waiting.delete(entry)) return;
            if (command === 'kvCommit') reject(new CommitOutcomeUnknown(`the connection to the Redis store ${description} closed before it confirmed a commit: it may or may not have been made`));
            else if (resendsLeft > 0) void readySoon().then((ready) => (ready ? send(resendsLeft - 1).then(resolve, reject) : reject(unavailable())));
            else reject(new StoreUnavailable(`the connection to the Redis store ${description} closed before it answered, ${resends + 1} times`));
          },
        };
        waiting.add(entry);
        (run.apply(client, args as unknown[]) as Promise<unknown>).then((value) => {
          if (waiting.delete(entry)) resolve(value);
        }, entry.fail);
      });
    };
    return send(resends);
  };
  const shutdown = (disconnect: () => Promise<void>) =>
    (closing ??= (async () => {
      clearInterval(sweep);
      await disconnect();
      for (const entry of [...waiting]) entry.fail(new Error('the store was closed before Redis answered'));
    })());
  return { call, shutdown };
}

/** Whether a connection is ready within `resendWithinMs`; one wait shared by every read lost to the same close. */
function sharedReadyWait(client: Redis): () => Promise<boolean> {
  let nextReady: Promise<boolean> | undefined;
  return () => {
    if (client.status === 'ready') return Promise.resolve(true);
    nextReady ??= new Promise<boolean>((resolve) => {
      const settle = (ready: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        nextReady = undefined;
        resolve(ready);
      };
      const onReady = () => settle(true);
      const timer = setTimeout(() => settle(false), resendWithinMs);
      client.once('ready', onReady);
    });
    return nextReady;
  };
}

/**
 * Closes the connection, for it to be made again, once a call written on it is past its deadline unanswered. One
 * sweep a second rather than a timer per call: calls are many, and a silent Redis is rare.
 */
function closeWhenSilent(client: Redis, waiting: ReadonlySet<{ written: boolean; startedAt: number; deadline: number }>, noteError: (error: Error) => void): NodeJS.Timeout {
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const entry of waiting) {
      if (!entry.written || entry.deadline > now) continue;
      noteError(new Error(`no answer within ${Math.round((entry.deadline - entry.startedAt) / 1000)} s: the connection was closed to be made again`));
      client.disconnect(true);
      return;
    }
  }, 1_000);
  sweep.unref();
  return sweep;
}

async function checkLayoutVersion(client: Redis, description: string): Promise<void> {
  const versionKey = 'pfm:layout';
  const found = await client.get(versionKey);
  if (found === layoutVersion) return;
  // No version: a new database takes this one; one holding data of an earlier layout does not.
  const [, keys] = found === null ? await client.scan('0', 'MATCH', 'pfm:*', 'COUNT', 1000) : ['0', ['']];
  if (found !== null || keys.length > 0) {
    throw new StoreError(
      `${description} holds mock data of ${found === null ? 'an earlier' : `another (${found})`} layout, and this mock writes layout ${layoutVersion}: empty that database (redis-cli -n DB FLUSHDB) or pass another one (--store redis://HOST:PORT/DB)`,
    );
  }
  await client.set(versionKey, layoutVersion);
}
