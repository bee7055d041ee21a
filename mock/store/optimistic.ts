/**
 * Transactions on a backend that answers over the network and that other processes write meanwhile (Redis): the
 * body runs against what has been fetched so far, and the commit checks that nothing it read has changed since
 * (the version of every key, the entries of every range), writing nothing when something has.
 *
 * A read of something not fetched yet does not stop the body: it is answered with what this process last knew of
 * it (hints.ts), or else with a guess (absent; an empty range; a number), and noted, and the body runs on. A run
 * that wrote is then committed as it is, when the commit can check everything it read (all but a number taken from
 * a counter on a guess, or a snapshot): when the hints and guesses were right, a create is one round trip. A run
 * that only read is checked the same way when it read nothing on a guess, the commit writing nothing. Otherwise, or
 * when the commit finds a read changed, everything the run did not fetch is fetched at once, in one round trip,
 * and the body runs again on it: a body that reads five keys needs one fetch, not five.
 */
import { Hints, rangeId, type HeldRange } from './hints.ts';
import type { KeyRange } from './keys.ts';
import type { Notices } from './notices.ts';
import { StoreError } from './store-error.ts';
import type { Table, TxBody } from './store.ts';
import { guessed, Transaction, type Mode, type RangeRead, type ReadKind, type Source, type TableReads, type Versioned, type VersionedEntry, type Write } from './transaction.ts';

export { Hints } from './hints.ts';

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

/** A commit made: the version it wrote at, and the value after each `add` among its writes, in order. */
export interface Committed {
  version: number;
  sums: readonly number[];
}

/**
 * What an optimistic backend commits, once it has checked every read: each key still at the version read (0:
 * absent), each range still holding the same keys at the same versions. False, and nothing written, when not.
 */
export type Commit = (reads: ReadonlyMap<string, TableReads>, ranges: readonly RangeRead[], writes: readonly Write[]) => Promise<Committed | false>;

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
  private readonly ranges = new Map<string, HeldRange>();
  private readonly allocated = new Map<string, { count: number; first: number }[]>();
  private readonly allocations = new Map<string, number>();
  private misses: Miss[] = [];
  private readonly missed = new Set<string>();
  private guesses = 0;
  /** Error.stackTraceLimit as it was before the run's first guess (see `miss`), to put back when the run ends. */
  private stackTraceLimit: number | undefined;
  /** Whether the run read a guess the commit cannot check: a number, or a snapshot. */
  uncheckable = false;
  /** Whether the run read a guess, not a hint: worth checking only when the run wrote something. */
  guessedBlind = false;
  /** The hints' generation when the run took one: they may have been forgotten since, for a reason (hints.ts). */
  hintedIn: number | undefined;

  constructor(private readonly hints: Hints) {}

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
    this.guessedBlind = false;
    this.hintedIn = undefined;
  }

  /** Whether the run read anything not fetched. */
  get guessing(): boolean {
    return this.misses.length > 0;
  }

  get(table: Table<unknown>, key: string, kind: ReadKind = 'checked'): unknown {
    const values = this.values.get(table.name);
    if (values?.has(key)) return values.get(key);
    this.miss(`g\u0002${table.name}\u0002${key}`, () => ({ kind: 'get', table, key }));
    const hint = this.hints.value(table, key, kind);
    if (hint !== undefined) {
      this.hintedIn = this.hints.generation;
      return hint;
    }
    this.guessedBlind = true;
    return guessed;
  }

  getMany(table: Table<unknown>, keys: readonly string[], kind: ReadKind = 'checked'): unknown[] {
    return keys.map((key) => this.get(table, key, kind));
  }

  scan(table: Table<unknown>, range: KeyRange, kind: ReadKind = 'checked'): VersionedEntry[] {
    const id = rangeId(table, range);
    const found = this.ranges.get(id);
    if (found) return found.entries;
    this.miss(`s\u0002${id}`, () => ({ kind: 'scan', table, range, id }));
    const hint = this.hints.range(table, id, kind);
    if (hint !== undefined) {
      this.hintedIn = this.hints.generation;
      return hint;
    }
    this.guessedBlind = true;
    if (kind !== 'checked') this.uncheckable = true;
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
    const { hints } = this;
    // What is fetched is newer than what was: a key's value and the ranges holding it are kept at one state, so that
    // a body reading a key both ways sees one. A range fetched now updates the keys in it; a key fetched now drops
    // a range fetched earlier that holds it at another version, or lacks it where it would be (another process
    // added it since): such a range is fetched again if read again.
    gets.forEach(({ table, key }, index) => {
      const found = values[index];
      this.valuesOf(table).set(key, found);
      hints.learnValue(table, key, found);
      for (const [id, held] of this.ranges) {
        const { range, entries } = held;
        if (held.table.name !== table.name || key < range.low || key >= range.high) continue;
        const entry = entries.find((candidate) => candidate.key === key);
        if (entry ? entry.version !== found?.version : found !== undefined && wouldHold(range, entries, key)) this.ranges.delete(id);
      }
    });
    scans.forEach(({ table, range, id }, index) => {
      const entries = ranges[index] ?? [];
      const held = { table, range, entries };
      this.ranges.set(id, held);
      hints.learnRange(held, id);
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

/**
 * Runs a body against a source that answers later, again while its commit finds that something read changed.
 * `hints`: what this process knows of the store, shared by its transactions (one per store opened); `notices`: who
 * hears what a committed transaction noticed.
 */
export async function runOptimistic<T>(body: TxBody<T>, remote: RemoteSource, commit: Commit, mode: Mode, description: string, hints: Hints, notices?: Notices): Promise<T> {
  const committed = async (tx: Transaction, fetched: Fetched): Promise<boolean> => {
    // Hints forgotten while the run was made on them (a connection lost, see hints.ts): not committed on.
    if (fetched.hintedIn !== undefined && fetched.hintedIn !== hints.generation) return false;
    const done = await commit(tx.reads, tx.ranges, tx.writes);
    if (!done) return false;
    hints.learnCommit(tx.writes, done.version, done.sums);
    tx.committed();
    notices?.deliverOf(tx);
    return true;
  };
  for (let attempt = 1; ; attempt += 1) {
    const fetched = new Fetched(hints);
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
        if (!writes) {
          tx.committed();
          notices?.deliverOf(tx);
          return value as T;
        }
        if (await committed(tx, fetched)) return value as T;
        break;
      }
      // Read on hints and guesses the commit checks: committed as it is when they were right. A run that only read
      // is checked when it read only hints: a blind guess is more often wrong, and then a fetch is the same round
      // trip as the check, and answers.
      if (ended && !tx.rerun && (writes || !fetched.guessedBlind) && (await committed(tx, fetched))) return value as T;
      await fetched.fetchMisses(remote);
    }
    if (attempt === maxAttempts) throw new StoreError(`the store ${description} is too busy: a transaction met concurrent changes ${maxAttempts} times; retry later`);
    // A little random: two processes that conflicted do not meet again at once.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
  }
}
