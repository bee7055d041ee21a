/**
 * Transactions on a backend that answers over the network and that other processes write meanwhile (Redis): the
 * body runs against what has been fetched so far, and the commit checks that nothing it read has changed since
 * (the versions fetched), writing nothing when something has.
 *
 * A read of something not fetched yet does not stop the body: it is answered with a guess (absent; an empty range;
 * a number) and noted, and the body runs on. When it ends, everything it missed is fetched at once, in one round
 * trip, and it runs again; a body that reads five keys needs one fetch, not five. A run on guesses is never
 * trusted, with one exception: when every guess was a key read as absent, which the commit checks like any other
 * read (version 0), the run is committed as it is. A create with a fresh idempotency key takes its key in one round
 * trip that way; when a guess was wrong, the commit writes nothing, the misses are fetched, and the body runs again.
 */
import type { KeyRange } from './keys.ts';
import { StoreError } from './store-error.ts';
import type { Table, TxBody } from './store.ts';
import { guessed, Transaction, type Mode, type Source, type TableReads, type Versioned, type VersionedEntry, type Write } from './transaction.ts';

/** Reads to make over the network, all in one round trip. */
export interface RemoteReads {
  gets: readonly { table: Table<unknown>; key: string }[];
  scans: readonly { table: Table<unknown>; range: KeyRange }[];
  /** Numbers to take from counters: each answers the first of `count` new ones. */
  allocations: readonly { counter: string; count: number }[];
}

/** What a backend read over the network answers, in the order asked: values with their versions, ranges, numbers. */
export interface RemoteSource {
  fetch(reads: RemoteReads): Promise<{ values: (Versioned | undefined)[]; ranges: VersionedEntry[][]; firsts: number[] }>;
}

/** What an optimistic backend commits: false, and nothing written, when something read has changed meanwhile. */
export type Commit = (reads: ReadonlyMap<string, TableReads>, writes: readonly Write[]) => Promise<boolean>;

/** A read the body made of something not fetched, to fetch before it runs again. */
type Miss =
  | { kind: 'get'; table: Table<unknown>; key: string }
  | { kind: 'scan'; table: Table<unknown>; range: KeyRange; id: string }
  | { kind: 'allocate'; counter: string; count: number; index: number };

/** Ends a run that guessed more than a body plausibly reads: a loop on guesses would otherwise never end. */
class TooManyGuesses {}
const maxGuessesPerRun = 2_000;

/**
 * What the runs of one transaction have fetched: values by table and key, ranges, and numbers allocated, each
 * counter's in the order the body asked for them (a body runs the same way on the same reads, so its k-th
 * allocation from a counter is the same one in every run), and the misses of the run under way.
 */
class Fetched implements Source {
  private readonly values = new Map<string, Map<string, Versioned | undefined>>();
  private readonly ranges = new Map<string, { table: Table<unknown>; range: KeyRange; entries: VersionedEntry[] }>();
  private readonly allocated = new Map<string, { count: number; first: number }[]>();
  private readonly allocations = new Map<string, number>();
  private misses: Miss[] = [];
  private readonly missed = new Set<string>();
  private guesses = 0;
  /** Error.stackTraceLimit as it was before the run's first guess (see `miss`), to put back when the run ends. */
  private stackTraceLimit: number | undefined;
  /** Whether the run read a guess the commit cannot check: a range, or a number. */
  uncheckable = false;

  /** Ends a run of the body: errors have stack traces again. */
  endRun(): void {
    if (this.stackTraceLimit !== undefined) Error.stackTraceLimit = this.stackTraceLimit;
    this.stackTraceLimit = undefined;
  }

  /** Starts a run of the body. */
  rewind(): void {
    this.allocations.clear();
    this.misses = [];
    this.missed.clear();
    this.guesses = 0;
    this.uncheckable = false;
  }

  /** Whether the run read anything not fetched. */
  get guessing(): boolean {
    return this.misses.length > 0;
  }

  get(table: Table<unknown>, key: string): unknown {
    const values = this.values.get(table.name);
    if (values?.has(key)) return values.get(key);
    this.miss(`g\u0002${table.name}\u0002${key}`, () => ({ kind: 'get', table, key }));
    return guessed;
  }

  getMany(table: Table<unknown>, keys: readonly string[]): unknown[] {
    return keys.map((key) => this.get(table, key));
  }

  scan(table: Table<unknown>, range: KeyRange): VersionedEntry[] {
    const id = `${table.name}\u0002${range.low}\u0002${range.high}\u0002${range.reverse ? 1 : 0}\u0002${range.limit}`;
    const found = this.ranges.get(id);
    if (found) return found.entries;
    this.uncheckable = true;
    this.miss(`s\u0002${id}`, () => ({ kind: 'scan', table, range, id }));
    return [];
  }

  allocate(counter: string, count: number): number {
    const index = this.allocations.get(counter) ?? 0;
    this.allocations.set(counter, index + 1);
    const taken = this.allocated.get(counter)?.[index];
    if (taken?.count === count) return taken.first;
    this.uncheckable = true;
    this.miss(`a\u0002${counter}\u0002${index}`, () => ({ kind: 'allocate', counter, count, index }));
    return 1;
  }

  /** Fetches every miss of the run, in one round trip. */
  async fetchMisses(remote: RemoteSource): Promise<void> {
    const gets = this.misses.filter((miss) => miss.kind === 'get');
    const scans = this.misses.filter((miss) => miss.kind === 'scan');
    const allocations = this.misses.filter((miss) => miss.kind === 'allocate');
    const { values, ranges, firsts } = await remote.fetch({ gets, scans, allocations });
    // What is fetched is newer than what was: a key's value and the ranges holding it are kept at one state, so that
    // a body reading a key both ways sees one. A range fetched now updates the keys in it; a key fetched now drops
    // a range fetched earlier that holds it at another version, or lacks it where it would be (another process
    // added it since): such a range is fetched again if read again.
    gets.forEach(({ table, key }, index) => {
      const found = values[index];
      this.valuesOf(table).set(key, found);
      for (const [id, held] of this.ranges) {
        const { range, entries } = held;
        if (held.table.name !== table.name || key < range.low || key >= range.high) continue;
        const entry = entries.find((candidate) => candidate.key === key);
        if (entry ? entry.version !== found?.version : found !== undefined && wouldHold(range, entries, key)) this.ranges.delete(id);
      }
    });
    scans.forEach(({ table, range, id }, index) => {
      const entries = ranges[index] ?? [];
      this.ranges.set(id, { table, range, entries });
      const known = this.valuesOf(table);
      for (const entry of entries) known.set(entry.key, { value: entry.value, version: entry.version });
    });
    allocations.forEach(({ counter, count, index }, at) => {
      let taken = this.allocated.get(counter);
      if (!taken) this.allocated.set(counter, (taken = []));
      taken[index] = { count, first: firsts[at] as number };
    });
  }

  private miss(id: string, make: () => Miss): void {
    if ((this.guesses += 1) > maxGuessesPerRun) throw new TooManyGuesses();
    // From the first guess on, whatever the body throws is dropped (the run is made again once the misses are
    // fetched): errors made meanwhile need no stack trace, which costs more than the rest of a run. The body runs
    // synchronously, so nothing else runs before `endRun` puts the limit back.
    if (this.stackTraceLimit === undefined) {
      this.stackTraceLimit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
    }
    if (this.missed.has(id)) return;
    this.missed.add(id);
    this.misses.push(make());
  }

  private valuesOf(table: Table<unknown>): Map<string, Versioned | undefined> {
    let values = this.values.get(table.name);
    if (!values) this.values.set(table.name, (values = new Map()));
    return values;
  }
}

/** Whether a range read as `entries` would hold `key` (within its bounds) had it been there: not past its limit. */
function wouldHold(range: KeyRange, entries: readonly VersionedEntry[], key: string): boolean {
  if (range.limit <= 0) return false;
  if (entries.length < range.limit) return true;
  const last = (entries.at(-1) as VersionedEntry).key;
  return range.reverse ? key > last : key < last;
}

const maxAttempts = 50;

/** Runs a body against a source that answers later, again while its commit finds that something read changed. */
export async function runOptimistic<T>(body: TxBody<T>, remote: RemoteSource, commit: Commit, mode: Mode, description: string): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const fetched = new Fetched();
    for (;;) {
      fetched.rewind();
      const tx = new Transaction(mode, fetched, true);
      let value: T | undefined;
      let ended = true;
      try {
        value = body(tx);
      } catch (error) {
        // On guesses, a body may fail where it would not on what is stored: it runs again once they are fetched.
        if (!fetched.guessing) throw error;
        ended = false;
      } finally {
        fetched.endRun();
      }
      const writes = mode !== 'read' && !tx.isReadOnly;
      if (!fetched.guessing) {
        // A key seen at two versions, fetched in different rounds: everything is fetched again, in a new attempt.
        if (tx.rerun) break;
        if (!writes || (await commit(tx.reads, tx.writes))) return value as T;
        break;
      }
      // Every guess a key read as absent, which the commit checks: committed as it is when they were right.
      if (ended && writes && !tx.rerun && (await commit(tx.reads, tx.writes))) return value as T;
      await fetched.fetchMisses(remote);
    }
    if (attempt === maxAttempts) throw new StoreError(`the store ${description} is too busy: a transaction met concurrent changes ${maxAttempts} times; retry later`);
    // A little random: two processes that conflicted do not meet again at once.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
  }
}
