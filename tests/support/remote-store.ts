/**
 * A store whose every read and commit is a round trip, kept in this process: the optimistic runner
 * (mock/store/optimistic.ts) over a fake remote that answers after `latencyMs`, with versions checked at commit as
 * Redis's commit script checks them. Bodies that run well on Redis run well here, without a Redis server; a body
 * that is not a function of what it reads (one that reads the clock, say) shows here, where each run is a
 * millisecond or more after the last.
 */
import { Hints, runOptimistic, type Commit, type RemoteSource } from '../../mock/store/optimistic.ts';
import { emptied, Notices } from '../../mock/store/notices.ts';
import type { KeyRange } from '../../mock/store/keys.ts';
import type { Store } from '../../mock/store/store.ts';
import type { Versioned } from '../../mock/store/transaction.ts';

export interface RemoteStore extends Store {
  /** Round trips made so far: fetches and commits. */
  readonly roundTrips: number;
}

/** What the fake remote holds: shared by every store opened on it, as processes share one Redis. */
export interface RemoteData {
  tables: Map<string, Map<string, { value: unknown; version: number }>>;
  counters: Map<string, number>;
  /** The version clock: 0 until the first commit, which starts it from the time of day, as Redis's script does. */
  clock: number;
}

export const newRemoteData = (): RemoteData => ({ tables: new Map(), counters: new Map(), clock: 0 });

/** A store on `data` (new data by default), each round trip `latencyMs` long (0: a turn of the event loop). */
export function openRemoteStore(options: { data?: RemoteData; latencyMs?: number } = {}): RemoteStore {
  const data = options.data ?? newRemoteData();
  const latencyMs = options.latencyMs ?? 2;
  const { tables, counters } = data;
  let roundTrips = 0;
  const tableOf = (name: string) => {
    let table = tables.get(name);
    if (!table) tables.set(name, (table = new Map()));
    return table;
  };
  const roundTrip = () => {
    roundTrips += 1;
    return new Promise((resolve) => (latencyMs === 0 ? setImmediate(resolve) : setTimeout(resolve, latencyMs)));
  };
  const rangeOf = (name: string, range: KeyRange): string[] => {
    const keys = [...tableOf(name).keys()].filter((key) => key >= range.low && key < range.high).sort();
    if (range.reverse) keys.reverse();
    return keys.slice(0, Math.max(0, range.limit));
  };
  const copy = (stored: { value: unknown; version: number }): Versioned => ({ value: structuredClone(stored.value), version: stored.version });

  const remote: RemoteSource = {
    async fetch({ gets, scans, allocations }) {
      await roundTrip();
      const values = gets.map(({ table, key }) => {
        const stored = tableOf(table.name).get(key);
        return stored && copy(stored);
      });
      const ranges = scans.map(({ table, range }) => rangeOf(table.name, range).map((key) => ({ key, ...copy(tableOf(table.name).get(key) as { value: unknown; version: number }) })));
      const firsts = allocations.map(({ counter, count }) => {
        const last = (counters.get(counter) ?? 0) + count;
        counters.set(counter, last);
        return last - count + 1;
      });
      return { values, ranges, firsts };
    },
  };

  const commit: Commit = async (reads, ranges, writes) => {
    await roundTrip();
    for (const { table, versions } of reads.values()) {
      for (const [key, version] of versions) if ((tableOf(table.name).get(key)?.version ?? 0) !== version) return false;
    }
    for (const { table, range, entries } of ranges) {
      const now = rangeOf(table.name, range);
      if (now.length !== entries.length || now.some((key, i) => key !== entries[i]?.key || tableOf(table.name).get(key)?.version !== entries[i]?.version)) return false;
    }
    if (writes.length === 0) return { version: 0, sums: [] };
    if (data.clock === 0) data.clock = Date.now() * 1000;
    data.clock += 1;
    const sums: number[] = [];
    for (const write of writes) {
      const table = tableOf(write.table.name);
      if (write.kind === 'delete') table.delete(write.key);
      else if (write.kind === 'put') table.set(write.key, { value: structuredClone(write.value), version: data.clock });
      else {
        const sum = ((table.get(write.key)?.value as number | undefined) ?? 0) + write.delta;
        sums.push(sum);
        table.set(write.key, { value: sum, version: data.clock });
      }
    }
    return { version: data.clock, sums };
  };
  const hints = new Hints();
  const notices = new Notices();

  const description = `remote (${latencyMs} ms a round trip)`;
  return {
    description,
    get roundTrips() {
      return roundTrips;
    },
    read: (body) => runOptimistic(body, remote, commit, 'read', description, hints, notices),
    write: (body) => runOptimistic(body, remote, commit, 'write', description, hints, notices),
    hold: (body) => runOptimistic(body, remote, commit, 'hold', description, hints, notices),
    listen: (listener) => notices.listen(listener),
    async clear(keep) {
      hints.clear();
      const kept = new Set(keep.map((table) => table.name));
      for (const name of tables.keys()) if (!kept.has(name)) tables.delete(name);
      notices.deliver(emptied);
    },
    async close() {},
  };
}
