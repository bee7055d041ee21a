/**
 * The delivery journal: every attempt, newest last, each partner's within its own capacity (one partner's busy
 * endpoints never push another's lines out); listed overall, per partner, per event.
 */
import { key, numberPart, within } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { attempts, attemptsByEvent, attemptsByPartner, counts } from './outbox-tables.ts';
import type { AttemptRecord } from './outbox-types.ts';
import { announce } from '../../changes/change-topics.ts';

/** Lines dropped by one write at most: a lowered capacity never makes one write slow. */
const dropBatch = 64;

/** The counter of a partner's lines. */
const counted = (partnerId: string) => `attempts:${partnerId}`;

/** Adds a line to the partner's journal; past `capacity` lines of that partner, its oldest go. */
export function pushAttempt(tx: Tx, record: AttemptRecord, partnerId: string, capacity: number): void {
  const id = tx.allocate('outbox_attempt');
  tx.put(attempts, key(id), { partnerId, record });
  tx.put(attemptsByPartner, key(partnerId, id), 1);
  // Indexed by the event and endpoint the line names, for the events a partner lists.
  if (record.endpointId !== undefined) tx.put(attemptsByEvent, key(record.eventId, record.endpointId, id), 1);
  tx.add(counts, counted(partnerId), 1);
  announce(tx, 'events', partnerId);
  const surplus = (tx.get(counts, counted(partnerId), { snapshot: true, recent: true }) ?? 0) - capacity;
  if (surplus <= 0) return;
  // Not a snapshot: two processes dropping the same lines retry rather than count them twice.
  const oldest = tx.scan(attemptsByPartner, within([partnerId], { limit: Math.min(surplus, dropBatch) }));
  forgetListed(tx, oldest);
}

function forgetAttempt(tx: Tx, id: number, { partnerId, record }: { partnerId: string; record: AttemptRecord }): void {
  tx.delete(attempts, key(id));
  tx.delete(attemptsByPartner, key(partnerId, id));
  if (record.endpointId !== undefined) tx.delete(attemptsByEvent, key(record.eventId, record.endpointId, id));
}

/** The newest `limit` lines, oldest first; only the partner's when given. */
export function listAttempts(tx: Tx, limit: number, partnerId?: string): AttemptRecord[] {
  if (partnerId === undefined) {
    const newest = tx.scan(attempts, within([], { reverse: true, limit }), { snapshot: true });
    return newest.map((entry) => entry.value.record).reverse();
  }
  const ids = tx.scan(attemptsByPartner, within([partnerId], { reverse: true, limit }), { snapshot: true });
  const found = tx.getMany(attempts, ids.map((entry) => key(numberPart(entry.key, 1))), { snapshot: true });
  return found.flatMap((entry) => (entry ? [entry.record] : [])).reverse();
}

/** An event's newest `limit` attempts at one endpoint, oldest first. */
export function attemptsOf(tx: Tx, eventId: string, endpointId: string, limit: number): AttemptRecord[] {
  const ids = tx.scan(attemptsByEvent, within([eventId, endpointId], { reverse: true, limit }), { snapshot: true });
  const found = tx.getMany(attempts, ids.map((entry) => key(numberPart(entry.key, 2))), { snapshot: true });
  return found.flatMap((entry) => (entry ? [entry.record] : [])).reverse();
}

/** Forgets up to `limit` of the partner's lines; true when none is left. */
export function forgetAttempts(tx: Tx, partnerId: string, limit: number): boolean {
  const ids = tx.scan(attemptsByPartner, within([partnerId], { limit }));
  forgetListed(tx, ids);
  return ids.length < limit;
}

/** Forgets the lines a scan of `attemptsByPartner` listed, and takes them off their partner's count. */
function forgetListed(tx: Tx, ids: readonly { key: string }[]): void {
  if (ids.length === 0) return;
  const found = tx.getMany(attempts, ids.map((entry) => key(numberPart(entry.key, 1))));
  ids.forEach((entry, index) => {
    const line = found[index];
    if (line) forgetAttempt(tx, numberPart(entry.key, 1), line);
    else tx.delete(attemptsByPartner, entry.key);
  });
  const partnerId = found.find((line) => line !== undefined)?.partnerId;
  if (partnerId !== undefined) tx.add(counts, counted(partnerId), -ids.length);
}
