/** The delivery journal: every attempt, newest last, within its capacity; listed overall, per partner, per event. */
import { key, numberPart, within } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { attempts, attemptsByEvent, attemptsByPartner } from './outbox-tables.ts';
import type { AttemptRecord } from './outbox-types.ts';

/** Lines dropped by one write at most: a lowered capacity never makes one write slow. */
const dropBatch = 64;

export function pushAttempt(tx: Tx, record: AttemptRecord, partnerId: string, capacity: number): void {
  const id = tx.allocate('outbox_attempt');
  tx.put(attempts, key(id), { partnerId, record });
  tx.put(attemptsByPartner, key(partnerId, id), 1);
  // Indexed by the event and endpoint the line names, for the events a partner lists.
  if (record.endpointId !== undefined) tx.put(attemptsByEvent, key(record.eventId, record.endpointId, id), 1);
  // Only ids above (newest - capacity) are kept.
  const cutoff = id - capacity;
  if (cutoff <= 0) return;
  const old = tx.scan(attempts, within([], { before: [cutoff + 1], limit: dropBatch }), { snapshot: true });
  for (const entry of old) forgetAttempt(tx, numberPart(entry.key, 0), entry.value);
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
  const found = tx.getMany(attempts, ids.map((entry) => key(numberPart(entry.key, 1))));
  ids.forEach((entry, index) => {
    const line = found[index];
    if (line) forgetAttempt(tx, numberPart(entry.key, 1), line);
    else tx.delete(attemptsByPartner, entry.key);
  });
  return ids.length < limit;
}
