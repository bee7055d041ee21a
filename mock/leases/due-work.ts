/**
 * Work kept in an index ordered by when it falls due (a time in milliseconds, the key's first part after an
 * optional prefix), taken under leases by whichever process gets there first: the formation timeline's steps, the
 * webhook outbox's endpoints and each endpoint's lanes. How such an index is walked is written here once: in due
 * order, a slice at a time, past work others hold; and when the next piece may be taken, a lease that has not run
 * out counting as not yet due.
 */
import { numberPart, parts, within, type KeyPart } from '../store/keys.ts';
import type { Entry, Table, Tx } from '../store/store.ts';

/** Index entries read per round while looking past work others hold. */
const slice = 64;

/**
 * Visits the entries under `prefix` due by `now` (all of them when `now` is undefined), earliest first, until
 * `visit` answers `stop` or none is left.
 */
export function visitDue(tx: Tx, index: Table<number>, now: number | undefined, visit: (entry: Entry<number>) => 'stop' | void, prefix: readonly KeyPart[] = []): void {
  let after: string[] | undefined;
  for (;;) {
    const bound = now === undefined ? {} : { before: [now + 1] };
    const due = tx.scan(index, within(prefix, { ...(after ? { after } : {}), ...bound, limit: slice }), { snapshot: true });
    for (const entry of due) if (visit(entry) === 'stop') return;
    if (due.length < slice) return;
    after = parts((due.at(-1) as { key: string }).key).slice(prefix.length);
  }
}

/**
 * Takes up to `limit` pieces of work due by `now`, earliest first: `take` claims the one an index entry names, or
 * answers undefined when it cannot (held by another, gone). The index is only listed: what decides is the work and
 * its claim, which `take` reads (and a commit checks).
 */
export function takeDue<T>(tx: Tx, index: Table<number>, now: number, limit: number, take: (entryKey: string) => T | undefined, prefix: readonly KeyPart[] = []): T[] {
  const taken: T[] = [];
  if (limit <= 0) return taken;
  visitDue(tx, index, now, (entry) => {
    const claim = take(entry.key);
    if (claim !== undefined) taken.push(claim);
    return taken.length === limit ? 'stop' : undefined;
  }, prefix);
  return taken;
}

/**
 * The earliest time a piece of work may be taken: a free one's due time; for a held one (`heldUntil`: when its
 * lease runs out, undefined when free), the later of its due time and the end of its lease, so that a lease run
 * out on work that is never due does not read as work due now. Undefined when nothing waits.
 */
export function nextDueAt(tx: Tx, index: Table<number>, heldUntil: (entryKey: string) => number | undefined, prefix: readonly KeyPart[] = []): number | undefined {
  let earliest: number | undefined;
  visitDue(tx, index, undefined, (entry) => {
    const dueAt = numberPart(entry.key, prefix.length);
    if (earliest !== undefined && dueAt >= earliest) return 'stop';
    const until = heldUntil(entry.key);
    const at = until === undefined ? dueAt : Math.max(dueAt, until);
    earliest = earliest === undefined ? at : Math.min(earliest, at);
    return until === undefined ? 'stop' : undefined;
  }, prefix);
  return earliest;
}
