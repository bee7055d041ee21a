/**
 * Whether an endpoint takes deliveries: disabled after its last retry failed or on its partner's request (its
 * lanes then wait off the due index), re-enabled with a notice of the disablement ahead of everything else and
 * every waiting event on a fresh retry schedule, and forgotten with what waits for it when it goes away.
 */
import { key, numberPart, parts, within } from '../../store/keys.ts';
import { announce } from '../../changes/change-topics.ts';
import type { Tx } from '../../store/store.ts';
import { dropDelivery, pruneEvents, storeEvents } from './event-records.ts';
import { indexEndpoint, placeLane } from './lanes.ts';
import { deliveries, deliveriesByEndpoint, endpointRounds, endpointStates, laneClaims, lanes, lanesDue } from './outbox-tables.ts';
import type { EndpointDisablement, EndpointState, OutboxEvent, OutboxOptions } from './outbox-types.ts';

/** Disables an endpoint on its partner's request; one disabled already (after failures, say) stays as it is. */
export function disableEndpoint(tx: Tx, endpointId: string, now: number, partnerId: string | undefined): void {
  if (tx.get(endpointStates, endpointId) !== undefined) return;
  tx.put(endpointStates, endpointId, { at: now, reason: 'requested', failedEventId: null });
  indexEndpoint(tx, endpointId);
  announce(tx, 'endpoints', partnerId);
}

/**
 * Re-enables a disabled endpoint: stores the event `notice` makes of the disablement (if any) ahead of everything
 * of that endpoint, and starts every held event on a fresh retry schedule. False (and nothing stored) when the
 * endpoint was not disabled.
 */
export function reenableEndpoint(
  tx: Tx,
  endpointId: string,
  notice: (disabled: EndpointDisablement) => OutboxEvent | undefined,
  now: number,
  options: OutboxOptions,
  partnerId: string | undefined,
): boolean {
  const disabled = tx.get(endpointStates, endpointId);
  if (!disabled) return false;
  tx.delete(endpointStates, endpointId);
  announce(tx, 'endpoints', partnerId);
  tx.put(endpointRounds, endpointId, (tx.get(endpointRounds, endpointId) ?? 0) + 1);
  const waiting = tx.scan(lanes, within([endpointId], { limit: Number.MAX_SAFE_INTEGER }));
  // In the order they fell due, each due now behind the one before.
  const inOrder = [...waiting].sort((a, b) => a.value.dueAt - b.value.dueAt || a.value.dueSeq - b.value.dueSeq);
  for (const lane of inOrder) placeLane(tx, endpointId, parts(lane.key)[1] as string, now);
  indexEndpoint(tx, endpointId);
  const event = notice(disabled);
  if (event) storeEvents(tx, [event], now, options);
  return true;
}

export function endpointState(tx: Tx, endpointId: string): EndpointState {
  const disabled = tx.get(endpointStates, endpointId);
  return disabled ? { disabled } : {};
}

/** Deliveries dropped per transaction while forgetting an endpoint: a large backlog never makes one write huge. */
const forgetBatch = 256;

/**
 * Drops up to a batch of what an endpoint that is going away leaves (its deliveries, delivered or not, then its
 * lanes and state); true once nothing is left. Its events stay listed, without it: an event redelivered to one
 * endpoint after another, each deleted in turn, lists only the endpoints that exist.
 */
export function forgetEndpointBatch(tx: Tx, endpointId: string, options: OutboxOptions): boolean {
  const listed = tx.scan(deliveriesByEndpoint, within([endpointId], { limit: forgetBatch }));
  const partners = new Set<string>();
  // Its lanes emptied go from the index of endpoints due once, below, rather than once a lane.
  const emptied = new Set<string>();
  for (const entry of listed) {
    const position = numberPart(entry.key, 1);
    const row = tx.get(deliveries, key(position));
    if (row) {
      dropDelivery(tx, position, row, emptied);
      partners.add(row.partnerId);
    } else tx.delete(deliveriesByEndpoint, entry.key);
  }
  indexEndpoint(tx, endpointId);
  // Events that waited only for it are done now, and count against their partner's capacity.
  for (const partnerId of partners) pruneEvents(tx, partnerId, options);
  if (listed.length === forgetBatch) return false;
  for (const lane of tx.scan(lanes, within([endpointId], { limit: Number.MAX_SAFE_INTEGER }))) {
    tx.delete(lanesDue, key(endpointId, lane.value.dueAt, lane.value.dueSeq, parts(lane.key)[1] as string));
    tx.delete(lanes, lane.key);
    tx.delete(laneClaims, lane.key);
  }
  tx.delete(endpointStates, endpointId);
  tx.delete(endpointRounds, endpointId);
  indexEndpoint(tx, endpointId);
  return true;
}
