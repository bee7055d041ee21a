/**
 * What the outbox shows: the deliveries (the most recently delivered and the oldest still waiting) and a partner's
 * events, each with where it went. A read costs a bounded amount however large a backlog a disabled endpoint holds.
 */
import { key, numberPart, within } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { attemptsOf } from './attempt-journal.ts';
import { deliveries, deliveriesByEvent, delivered, deliveredByPartner, endpointStates, eventsByPartner, eventsByType, events, laneClaims, pending, pendingByPartner, type DeliveryRow } from './outbox-tables.ts';
import type { DeliveryRecord, DeliveryState, EventPage, StoredEvent } from './outbox-types.ts';

/** Attempts listed per event and endpoint. */
const attemptsShown = 20;

/** Where a delivery stands: delivered, held (its endpoint disabled), in flight (the claim on its lane took it), or pending. */
function stateOf(tx: Tx, position: number, row: DeliveryRow, now: number): DeliveryState {
  if (row.state === 'delivered' || row.state === 'dropped') return row.state;
  if (tx.get(endpointStates, row.endpointId) !== undefined) return 'held';
  const claim = tx.get(laneClaims, key(row.endpointId, row.laneKey));
  return claim && claim.position === position && claim.until > now ? 'in-flight' : 'pending';
}

/**
 * The most recently delivered (up to the capacity) and at most `limit` undelivered, in the order stored (by event,
 * then by the order queued), only `partnerId`'s when given.
 */
export function listDeliveries(tx: Tx, now: number, limit: number, capacity: number, partnerId?: string): DeliveryRecord[] {
  const prefix = partnerId === undefined ? [] : [partnerId];
  const recent = tx.scan(partnerId === undefined ? delivered : deliveredByPartner, within(prefix, { reverse: true, limit: capacity }));
  const waiting = tx.scan(partnerId === undefined ? pending : pendingByPartner, within(prefix, { limit }));
  const positions = [...recent.map((entry) => entry.value), ...waiting.map((entry) => numberPart(entry.key, prefix.length))];
  const rows = tx.getMany(deliveries, positions.map((position) => key(position)));
  const listed: (DeliveryRecord & { seq: number; position: number })[] = [];
  for (const [index, row] of rows.entries()) {
    const position = positions[index] as number;
    const event = row && tx.get(events, key(row.eventSeq));
    if (!row || !event) continue;
    const state = stateOf(tx, position, row, now);
    listed.push({ seq: row.eventSeq, position, eventId: event.id, type: event.type, orderingKey: event.orderingKey, endpointId: row.endpointId, state, attempts: row.attempts });
  }
  return listed.sort((a, b) => a.seq - b.seq || a.position - b.position).map(({ seq: _seq, position: _position, ...record }) => record);
}

/**
 * A partner's events, newest first, a page of at most `limit` before `before` (a `seq`), of one `type` when given,
 * each with its deliveries (per endpoint, where its latest delivery stands) and their newest attempts.
 */
export function listEvents(tx: Tx, partnerId: string, query: { limit: number; before?: number; type?: string }, now: number): EventPage {
  const prefix = query.type === undefined ? [partnerId] : [partnerId, query.type];
  const index = query.type === undefined ? eventsByPartner : eventsByType;
  const bound = query.before === undefined ? {} : { before: [query.before] };
  const entries = tx.scan(index, within(prefix, { ...bound, reverse: true, limit: query.limit + 1 }));
  const items: StoredEvent[] = [];
  for (const entry of entries.slice(0, query.limit)) {
    const seq = numberPart(entry.key, prefix.length);
    const event = tx.get(events, key(seq));
    if (event) items.push({ seq, id: event.id, type: event.type, orderingKey: event.orderingKey, createdAt: event.createdAt, body: event.body, deliveries: deliveriesOf(tx, seq, event.id, now) });
  }
  const last = items.at(-1);
  return entries.length > query.limit && last ? { items, next: last.seq } : { items };
}

function deliveriesOf(tx: Tx, seq: number, eventId: string, now: number): StoredEvent['deliveries'] {
  // Per endpoint, its latest delivery says where the event stands there (a redelivery adds one).
  const latest = new Map<string, { position: number; row: DeliveryRow }>();
  for (const entry of tx.scan(deliveriesByEvent, within([seq], { limit: Number.MAX_SAFE_INTEGER }))) {
    const position = numberPart(entry.key, 1);
    const row = tx.get(deliveries, key(position));
    if (row) latest.set(row.endpointId, { position, row });
  }
  const listed: StoredEvent['deliveries'] = [];
  for (const [endpointId, { position, row }] of latest) {
    listed.push({ endpointId, state: stateOf(tx, position, row, now), attempts: attemptsOf(tx, eventId, endpointId, attemptsShown) });
  }
  return listed;
}
