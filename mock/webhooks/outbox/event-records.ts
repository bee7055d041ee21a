/**
 * Events and their deliveries: storing an event with a pending delivery per endpoint (in the same transaction as
 * the change that causes it), ending a delivery, and keeping each partner's events within its own capacity: its
 * newest `eventsKeptPerPartner` with nothing left to deliver, and every one still pending. Every cap here is a
 * partner's: what one partner does (a backlog held by a disabled endpoint, thousands of companies) never pushes
 * another's events out or keeps them from being queued.
 */
import { key, numberPart, within } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { pushAttempt } from './attempt-journal.ts';
import { currentRound, indexEndpoint, laneHead, makeLaneDue, removeLane } from './lanes.ts';
import {
  counts,
  deliveries,
  deliveriesByEndpoint,
  deliveriesByEvent,
  deliveriesByLane,
  delivered,
  deliveredByPartner,
  endpointLaneKey,
  eventIds,
  events,
  eventsByPartner,
  eventsByType,
  eventsDone,
  lanes,
  pending,
  pendingByPartner,
  type DeliveryRow,
  type EventRow,
} from './outbox-tables.ts';
import type { OutboxEvent, OutboxOptions } from './outbox-types.ts';
import { announce } from '../../changes/change-topics.ts';

/** Events dropped past the capacity by one write at most: a lowered capacity never makes one write slow. */
const pruneBatch = 64;

export function storeEvents(tx: Tx, outboxEvents: readonly OutboxEvent[], now: number, options: OutboxOptions): void {
  for (const { partnerId, event, orderingKey, endpointIds, body } of outboxEvents) {
    const seq = tx.allocate('outbox_event');
    tx.put(events, key(seq), { id: event.id, partnerId, type: event.type, orderingKey, body: body ?? JSON.stringify(event), createdAt: now, waiting: 0 });
    tx.put(eventIds, key(partnerId, event.id), seq);
    tx.put(eventsByPartner, key(partnerId, seq), 1);
    tx.put(eventsByType, key(partnerId, event.type, seq), 1);
    announce(tx, 'events', partnerId);
    if (endpointIds.length === 0) {
      const line = { eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' as const };
      pushAttempt(tx, line, partnerId, options.attemptsKeptPerPartner);
      markDone(tx, partnerId, seq);
    }
    for (const endpointId of endpointIds) enqueue(tx, seq, endpointId, now, options);
  }
  for (const partnerId of new Set(outboxEvents.map((event) => event.partnerId))) pruneEvents(tx, partnerId, options);
}

/**
 * What became of an event from outside: `queued` for its endpoint; `duplicate` when that endpoint had it already;
 * `dropped` when its partner's queue is full (nothing taken: sent again later, it is queued then); `kept` when it
 * is for no endpoint, and only listed.
 */
export type StoredFromOutside = 'queued' | 'duplicate' | 'dropped' | 'kept';

/**
 * Stores an event from outside (the webhook relay) for the one endpoint it was sent to, if any: its partner keeps
 * one event of each id, and each endpoint one delivery of it. So a sender that sends the same event to several
 * endpoints reaches each once, whichever it reached first, and one that sends it again reaches none twice. It is
 * known by the deliveries kept in the store, so it outlives a restart, as long as the event is kept.
 */
export function storeFromOutside(tx: Tx, outboxEvent: OutboxEvent, now: number, options: OutboxOptions): StoredFromOutside {
  const [endpointId, ...others] = outboxEvent.endpointIds;
  if (others.length > 0) throw new Error('an event from outside is sent to one endpoint at a time');
  const seq = tx.get(eventIds, key(outboxEvent.partnerId, outboxEvent.event.id));
  if (seq === undefined) {
    storeEvents(tx, [outboxEvent], now, options);
    if (endpointId === undefined) return 'kept';
    return hasDelivery(tx, tx.get(eventIds, key(outboxEvent.partnerId, outboxEvent.event.id)) as number, endpointId) ? 'queued' : 'dropped';
  }
  if (endpointId === undefined) return 'kept';
  if (hasDelivery(tx, seq, endpointId)) return 'duplicate';
  return enqueue(tx, seq, endpointId, now, options) ? 'queued' : 'dropped';
}

/** Whether event `seq` has a delivery to the endpoint, queued or made (one dropped for a full queue is neither). */
function hasDelivery(tx: Tx, seq: number, endpointId: string): boolean {
  const positions = tx.scan(deliveriesByEvent, within([seq], { limit: Number.MAX_SAFE_INTEGER })).map((entry) => key(numberPart(entry.key, 1)));
  return tx.getMany(deliveries, positions).some((row) => row?.endpointId === endpointId && row.state !== 'dropped');
}

/**
 * Whether the event's partner may have one more delivery waiting. An endpoint's own notice always may: it is one per
 * re-enabling, and it is what tells the partner that deliveries stopped, which a full queue (of that endpoint's
 * backlog, most often) is the reason to say.
 */
function hasRoom(tx: Tx, event: EventRow, options: OutboxOptions): boolean {
  if (event.orderingKey === endpointLaneKey) return true;
  return (tx.get(counts, pendingOf(event.partnerId), { snapshot: true, recent: true }) ?? 0) < options.maxQueuedPerPartner;
}

/**
 * A pending delivery of event `seq` to an endpoint, at the end of its lane; false when its partner's queue is full,
 * and the delivery is kept as dropped instead (listed with the event, a line in the delivery journal, and told to
 * `onDropped`), so that whoever reads the event's deliveries sees that it was never queued there.
 */
export function enqueue(tx: Tx, seq: number, endpointId: string, now: number, options: OutboxOptions): boolean {
  const event = tx.get(events, key(seq)) as EventRow;
  if (!hasRoom(tx, event, options)) {
    keepDropped(tx, seq, event, endpointId, now, options);
    return false;
  }
  const position = tx.allocate('outbox_delivery');
  const row: DeliveryRow = { eventSeq: seq, endpointId, laneKey: event.orderingKey, partnerId: event.partnerId, state: 'pending', attempts: 0, round: currentRound(tx, endpointId), roundAttempts: 0 };
  tx.put(deliveries, key(position), row);
  tx.put(deliveriesByLane, key(endpointId, event.orderingKey, position), seq);
  tx.put(deliveriesByEvent, key(seq, position), 1);
  tx.put(deliveriesByEndpoint, key(endpointId, position), seq);
  tx.put(pending, key(position), 1);
  tx.put(pendingByPartner, key(event.partnerId, position), 1);
  tx.add(counts, pendingOf(event.partnerId), 1);
  if (event.waiting === 0 && tx.get(eventsDone, key(event.partnerId, seq)) !== undefined) {
    tx.delete(eventsDone, key(event.partnerId, seq));
    tx.add(counts, doneOf(event.partnerId), -1);
  }
  tx.put(events, key(seq), { ...event, waiting: event.waiting + 1 });
  announce(tx, 'events', event.partnerId);
  if (tx.get(lanes, key(endpointId, event.orderingKey)) === undefined) makeLaneDue(tx, endpointId, event.orderingKey, now);
  return true;
}

/** A delivery dropped for a full queue: a row that is never attempted, its line in the delivery journal, and the event done. */
function keepDropped(tx: Tx, seq: number, event: EventRow, endpointId: string, now: number, options: OutboxOptions): void {
  const { onDropped, maxQueuedPerPartner } = options;
  if (onDropped) tx.afterCommit(() => onDropped({ partnerId: event.partnerId, eventId: event.id, type: event.type, orderingKey: event.orderingKey }));
  const position = tx.allocate('outbox_delivery');
  tx.put(deliveries, key(position), { eventSeq: seq, endpointId, laneKey: event.orderingKey, partnerId: event.partnerId, state: 'dropped', attempts: 0, round: 0, roundAttempts: 0 });
  tx.put(deliveriesByEvent, key(seq, position), 1);
  tx.put(deliveriesByEndpoint, key(endpointId, position), seq);
  const error = `Not queued: the partner already had ${maxQueuedPerPartner} deliveries waiting, as many as the store keeps; redeliver it once they have gone out.`;
  pushAttempt(tx, { eventId: event.id, endpointId, type: event.type, orderingKey: event.orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, error, outcome: 'dropped' }, event.partnerId, options.attemptsKeptPerPartner);
  if (event.waiting === 0 && tx.get(eventsDone, key(event.partnerId, seq)) === undefined) markDone(tx, event.partnerId, seq);
}

/** A pending delivery that stops waiting (delivered, or its endpoint gone): off its queue and the pending lists. */
export function endDelivery(tx: Tx, position: number, row: DeliveryRow): void {
  tx.delete(deliveriesByLane, key(row.endpointId, row.laneKey, position));
  tx.delete(pending, key(position));
  tx.delete(pendingByPartner, key(row.partnerId, position));
  tx.add(counts, pendingOf(row.partnerId), -1);
  const event = tx.get(events, key(row.eventSeq));
  if (!event) return;
  tx.put(events, key(row.eventSeq), { ...event, waiting: Math.max(0, event.waiting - 1) });
  if (event.waiting === 1) markDone(tx, event.partnerId, row.eventSeq);
}

/** The counters of a partner's pending deliveries and of its events with nothing left to deliver. */
const pendingOf = (partnerId: string) => `pending:${partnerId}`;
const doneOf = (partnerId: string) => `done:${partnerId}`;

function markDone(tx: Tx, partnerId: string, seq: number): void {
  tx.put(eventsDone, key(partnerId, seq), 1);
  tx.add(counts, doneOf(partnerId), 1);
}

/** Past the partner's capacity, its oldest events with nothing left to deliver go, with their deliveries. */
export function pruneEvents(tx: Tx, partnerId: string, options: OutboxOptions): void {
  const surplus = (tx.get(counts, doneOf(partnerId), { snapshot: true, recent: true }) ?? 0) - options.eventsKeptPerPartner;
  if (surplus <= 0) return;
  const oldest = tx.scan(eventsDone, within([partnerId], { limit: Math.min(surplus, pruneBatch) }), { snapshot: true });
  for (const entry of oldest) {
    if (dropEvent(tx, numberPart(entry.key, 1))) continue;
    // Listed but gone: the entry goes, or the partner's surplus would never shrink.
    tx.delete(eventsDone, entry.key);
    tx.add(counts, doneOf(partnerId), -1);
  }
}

/** An event and all its deliveries (past the capacity, or its partner's reset); false when there was none. */
export function dropEvent(tx: Tx, seq: number): boolean {
  // Read (not only listed), so that two processes dropping the same event retry rather than count it twice.
  const event = tx.get(events, key(seq));
  if (!event) return false;
  // Its deliveries first: ending one still pending may mark the event done, which is undone below.
  const emptied = new Set<string>();
  for (const entry of tx.scan(deliveriesByEvent, within([seq], { limit: Number.MAX_SAFE_INTEGER }))) {
    const position = numberPart(entry.key, 1);
    const row = tx.get(deliveries, key(position));
    if (row) dropDelivery(tx, position, row, emptied);
    else tx.delete(deliveriesByEvent, entry.key);
  }
  for (const endpointId of emptied) indexEndpoint(tx, endpointId);
  if (tx.get(eventsDone, key(event.partnerId, seq)) !== undefined) {
    tx.delete(eventsDone, key(event.partnerId, seq));
    tx.add(counts, doneOf(event.partnerId), -1);
  }
  tx.delete(events, key(seq));
  tx.delete(eventIds, key(event.partnerId, event.id));
  tx.delete(eventsByPartner, key(event.partnerId, seq));
  tx.delete(eventsByType, key(event.partnerId, event.type, seq));
  return true;
}

/**
 * A delivery, whatever its state, with every index that names it (its event dropped, or its endpoint gone). One
 * still pending ends first: its lane goes too once nothing else waits in it, and its endpoint is added to
 * `emptied`, to be placed again among the endpoints due (`indexEndpoint`) once the caller is done.
 */
export function dropDelivery(tx: Tx, position: number, row: DeliveryRow, emptied: Set<string>): void {
  if (row.state === 'pending') {
    endDelivery(tx, position, row);
    if (laneHead(tx, row.endpointId, row.laneKey) === undefined) {
      removeLane(tx, row.endpointId, row.laneKey);
      emptied.add(row.endpointId);
    }
  }
  if (row.deliveredOrder !== undefined) forgetDelivered(tx, row);
  tx.delete(deliveries, key(position));
  tx.delete(deliveriesByEvent, key(row.eventSeq, position));
  tx.delete(deliveriesByEndpoint, key(row.endpointId, position));
}

/** Takes a delivery off the lists of the most recently delivered, where the capacity has not already. */
function forgetDelivered(tx: Tx, row: DeliveryRow): void {
  const order = row.deliveredOrder as number;
  if (tx.get(delivered, key(order)) !== undefined) {
    tx.delete(delivered, key(order));
    tx.add(counts, 'delivered', -1);
  }
  if (tx.get(deliveredByPartner, key(row.partnerId, order)) !== undefined) {
    tx.delete(deliveredByPartner, key(row.partnerId, order));
    tx.add(counts, `delivered:${row.partnerId}`, -1);
  }
}

/** Lists a delivery among the most recently delivered, overall and of its partner, within the capacity. */
export function listDelivered(tx: Tx, position: number, row: DeliveryRow, capacity: number): DeliveryRow {
  const order = tx.allocate('outbox_delivered');
  tx.put(delivered, key(order), position);
  tx.put(deliveredByPartner, key(row.partnerId, order), position);
  tx.add(counts, 'delivered', 1);
  tx.add(counts, `delivered:${row.partnerId}`, 1);
  trimDelivered(tx, [], 'delivered', capacity);
  trimDelivered(tx, [row.partnerId], `delivered:${row.partnerId}`, capacity);
  return { ...row, deliveredOrder: order };
}

function trimDelivered(tx: Tx, prefix: string[], counter: string, capacity: number): void {
  const surplus = (tx.get(counts, counter, { snapshot: true, recent: true }) ?? 0) - capacity;
  if (surplus <= 0) return;
  const list = prefix.length === 0 ? delivered : deliveredByPartner;
  // Not a snapshot: two processes trimming the same entries retry rather than count them twice.
  const oldest = tx.scan(list, within(prefix, { limit: Math.min(surplus, pruneBatch) }));
  for (const entry of oldest) tx.delete(list, entry.key);
  tx.add(counts, counter, -oldest.length);
}

/**
 * Sends a partner's event again to one endpoint, after what waits in its lane: `queued`; `full` when the partner's
 * queue is, and nothing is written (the caller is told, and asks again); `unknown` when there is no such event.
 */
export function redeliver(tx: Tx, partnerId: string, eventId: string, endpointId: string, now: number, options: OutboxOptions): 'queued' | 'full' | 'unknown' {
  const seq = tx.get(eventIds, key(partnerId, eventId));
  if (seq === undefined) return 'unknown';
  if (!hasRoom(tx, tx.get(events, key(seq)) as EventRow, options)) return 'full';
  enqueue(tx, seq, endpointId, now, options);
  return 'queued';
}
