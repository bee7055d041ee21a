/**
 * Work kept in an index ordered by when it falls due (the key's first part, a time in milliseconds), taken under
 * leases by whichever process gets there first: the formation timeline's steps and the webhook outbox's lanes.
 * How such an index is walked is written here once: in due order, a slice at a time, past work others hold; and
 * when the next piece may be taken, a lease that has not run out counting as not yet due.
 */
import { numberPart, parts, within } from '../store/keys.ts';
import type { Table, Tx } from '../store/store.ts';

/** Index entries read per round while looking past work others hold. */
const slice = 64;

/**
 * Takes up to `limit` pieces of work due by `now`, earliest first: `take` claims the one an index entry names, or
 * answers undefined when it cannot (held by another, gone). The index is only listed: what decides is the work and
 * its claim, which `take` reads (and a commit checks).
 */
export function takeDue<T>(tx: Tx, index: Table<number>, now: number, limit: number, take: (entryKey: string) => T | undefined): T[] {
  const taken: T[] = [];
  let after: string[] | undefined;
  while (taken.length < limit) {
    const due = tx.scan(index, within([], { ...(after ? { after } : {}), before: [now + 1], limit: slice }), { snapshot: true });
    for (const entry of due) {
      if (taken.length === limit) break;
      const claim = take(entry.key);
      if (claim !== undefined) taken.push(claim);
    }
    if (due.length < slice) break;
    after = parts((due.at(-1) as { key: string }).key);
  }
  return taken;
}

/**
 * The earliest time a piece of work may be taken: a free one's due time; for a held one (`heldUntil`: when its
 * lease runs out, undefined when free), the later of its due time and the end of its lease, so that a lease run
 * out on work that is never due does not read as work due now. Undefined when nothing waits.
 */
export function nextDueAt(tx: Tx, index: Table<number>, heldUntil: (entryKey: string) => number | undefined): number | undefined {
  let earliest: number | undefined;
  let after: string[] | undefined;
  for (;;) {
    const due = tx.scan(index, within([], { ...(after ? { after } : {}), limit: slice }), { snapshot: true });
    for (const entry of due) {
      const dueAt = numberPart(entry.key, 0);
      if (earliest !== undefined && dueAt >= earliest) return earliest;
      const until = heldUntil(entry.key);
      const at = until === undefined ? dueAt : Math.max(dueAt, until);
      earliest = earliest === undefined ? at : Math.min(earliest, at);
      if (until === undefined) return earliest;
    }
    if (due.length < slice) return earliest;
    after = parts((due.at(-1) as { key: string }).key);
  }
}
