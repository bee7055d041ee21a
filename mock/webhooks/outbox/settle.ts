/**
 * An attempt's outcome, recorded under the claim that made it: delivered (the lane moves on to its next event),
 * retried at a time (the lane waits), or, after the last retry, the endpoint disabled (all its lanes wait for it to
 * be re-enabled). Nothing is recorded when the claim is no longer held: its lease ran out and another process may
 * have taken the lane.
 */
import { key } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { pushAttempt } from './attempt-journal.ts';
import { endDelivery, listDelivered, pruneEvents } from './event-records.ts';
import { currentRound, dropLane, heldClaim, laneHead, makeLaneDue } from './lanes.ts';
import { deliveries, endpointStates, events, laneClaims } from './outbox-tables.ts';
import type { AttemptRecord, DeliveryOutcome, LaneClaim, OutboxOptions } from './outbox-types.ts';
import { announce } from '../../changes/change-topics.ts';

export function settleAttempt(tx: Tx, claim: LaneClaim, outcome: DeliveryOutcome, attempt: AttemptRecord, now: number, options: OutboxOptions): boolean {
  const held = heldClaim(tx, claim, now);
  const row = held === undefined ? undefined : tx.get(deliveries, key(held.position));
  const event = row?.state === 'pending' ? tx.get(events, key(row.eventSeq)) : undefined;
  if (!held || !row || event?.id !== claim.eventId) return false;
  const round = currentRound(tx, claim.endpointId);
  let counted = { ...row, attempts: row.attempts + 1, round, roundAttempts: (row.round === round ? row.roundAttempts : 0) + 1 };
  pushAttempt(tx, attempt, row.partnerId, options.attemptsKeptPerPartner);
  tx.delete(laneClaims, key(claim.endpointId, claim.laneKey));
  if (outcome.kind === 'delivered') {
    endDelivery(tx, held.position, row);
    counted = listDelivered(tx, held.position, { ...counted, state: 'delivered' }, options.deliveredCapacity);
    tx.put(deliveries, key(held.position), counted);
    if (laneHead(tx, claim.endpointId, claim.laneKey) === undefined) dropLane(tx, claim.endpointId, claim.laneKey);
    else makeLaneDue(tx, claim.endpointId, claim.laneKey, now);
    pruneEvents(tx, row.partnerId, options);
    return true;
  }
  tx.put(deliveries, key(held.position), counted);
  if (outcome.kind === 'retry') {
    makeLaneDue(tx, claim.endpointId, claim.laneKey, outcome.at);
    return true;
  }
  tx.put(endpointStates, claim.endpointId, { at: now, reason: 'failures', failedEventId: claim.eventId });
  announce(tx, 'endpoints', row.partnerId);
  // Disabled: making the lane due takes the endpoint off the index of endpoints due, its lanes waiting in order.
  makeLaneDue(tx, claim.endpointId, claim.laneKey, now);
  return true;
}
