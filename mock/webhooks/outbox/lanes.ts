/**
 * Delivery lanes: one endpoint × one ordering key, a queue of pending deliveries of which only the head is ever
 * attempted, held by one claim at a time. That is what keeps a company's events in order at each endpoint, while
 * lanes are taken in the order they fell due, so a busy company cannot starve a quiet one.
 */
import { key, numberPart, parts, within } from '../../store/keys.ts';
import type { Tx } from '../../store/store.ts';
import { newClaimToken } from '../../leases/claim-token.ts';
import { nextDueAt, takeDue } from '../../leases/due-work.ts';
import { deliveries, deliveriesByLane, endpointLaneKey, endpointRounds, endpointStates, events, laneClaims, lanes, lanesDue, type LaneClaimRow, type LaneRow } from './outbox-tables.ts';
import type { LaneClaim } from './outbox-types.ts';

const dueKey = (lane: LaneRow, endpointId: string, laneKey: string) => key(lane.dueAt, lane.dueSeq, endpointId, laneKey);

/** Makes the lane free and due at `at` (made if new), behind the lanes that became due the same millisecond. */
export function makeLaneDue(tx: Tx, endpointId: string, laneKey: string, at: number): void {
  const before = tx.get(lanes, key(endpointId, laneKey));
  if (before) tx.delete(lanesDue, dueKey(before, endpointId, laneKey));
  const lane = { dueAt: at, dueSeq: tx.allocate('outbox_lane_due') };
  tx.put(lanes, key(endpointId, laneKey), lane);
  tx.delete(laneClaims, key(endpointId, laneKey));
  // A disabled endpoint's lanes wait off the index, for its re-enabling.
  if (tx.get(endpointStates, endpointId) === undefined) tx.put(lanesDue, dueKey(lane, endpointId, laneKey), 1);
}

/** A lane with nothing left to send goes. */
export function dropLane(tx: Tx, endpointId: string, laneKey: string): void {
  const lane = tx.get(lanes, key(endpointId, laneKey));
  if (lane) tx.delete(lanesDue, dueKey(lane, endpointId, laneKey));
  tx.delete(lanes, key(endpointId, laneKey));
  tx.delete(laneClaims, key(endpointId, laneKey));
}

/** The position of a lane's head: the oldest pending delivery, or on the endpoint's own lane the newest. */
export function laneHead(tx: Tx, endpointId: string, laneKey: string): number | undefined {
  const [head] = tx.scan(deliveriesByLane, within([endpointId, laneKey], { reverse: laneKey === endpointLaneKey, limit: 1 }));
  return head === undefined ? undefined : numberPart(head.key, 2);
}

/** Takes every lane of the endpoint off the due index (it is being disabled). */
export function unindexLanes(tx: Tx, endpointId: string): void {
  for (const { key: laneKey, value } of tx.scan(lanes, within([endpointId], { limit: Number.MAX_SAFE_INTEGER }))) {
    tx.delete(lanesDue, dueKey(value, endpointId, parts(laneKey)[1] as string));
  }
}

/**
 * Claims up to `limit` lanes whose head is due by `now`, on enabled endpoints, that nobody holds, in the order they
 * became due. While an endpoint has an event of its own waiting (`webhook_endpoint.disabled`), only that lane of the
 * endpoint is claimed. A hold.
 */
export function claimLanes(tx: Tx, now: number, leaseMs: number, limit: number): LaneClaim[] {
  return takeDue(tx, lanesDue, now, limit, (entryKey) => {
    const [, , endpointId, laneKey] = parts(entryKey) as [string, string, string, string];
    return claimLane(tx, endpointId, laneKey, now, leaseMs);
  });
}

function claimLane(tx: Tx, endpointId: string, laneKey: string, now: number, leaseMs: number): LaneClaim | undefined {
  const held = tx.get(laneClaims, key(endpointId, laneKey));
  if (held && held.until > now) return undefined;
  if (laneKey !== endpointLaneKey && tx.get(lanes, key(endpointId, endpointLaneKey)) !== undefined) return undefined;
  const position = laneHead(tx, endpointId, laneKey);
  const delivery = position === undefined ? undefined : tx.get(deliveries, key(position));
  const event = delivery === undefined ? undefined : tx.get(events, key(delivery.eventSeq));
  if (position === undefined || !delivery || !event) return undefined;
  const token = newClaimToken();
  tx.put(laneClaims, key(endpointId, laneKey), { token, until: now + leaseMs, position });
  const round = currentRound(tx, endpointId);
  return {
    endpointId,
    laneKey,
    token,
    partnerId: event.partnerId,
    eventId: event.id,
    type: event.type,
    body: event.body,
    attempts: delivery.attempts,
    roundAttempts: delivery.round === round ? delivery.roundAttempts : 0,
  };
}

/** How many times the endpoint was re-enabled: a delivery counted in an earlier round starts its schedule afresh. */
export function currentRound(tx: Tx, endpointId: string): number {
  return tx.get(endpointRounds, endpointId) ?? 0;
}

/** The claim, if it is still held by this token; undefined when its lease ran out or another took the lane. */
export function heldClaim(tx: Tx, claim: Pick<LaneClaim, 'endpointId' | 'laneKey' | 'token'>, now: number): LaneClaimRow | undefined {
  const held = tx.get(laneClaims, key(claim.endpointId, claim.laneKey));
  return held && held.token === claim.token && held.until > now ? held : undefined;
}

/** Gives the lane back at once, counting no attempt (an attempt cut short by a shutdown). A hold. */
export function releaseLane(tx: Tx, claim: LaneClaim): void {
  const held = tx.get(laneClaims, key(claim.endpointId, claim.laneKey));
  if (held?.token === claim.token) tx.delete(laneClaims, key(claim.endpointId, claim.laneKey));
}

/** When a lane on an enabled endpoint is next due or its lease runs out; undefined when nothing waits. */
export function nextLaneDueAt(tx: Tx): number | undefined {
  return nextDueAt(tx, lanesDue, (entryKey) => {
    const [, , endpointId, laneKey] = parts(entryKey) as [string, string, string, string];
    return tx.get(laneClaims, key(endpointId, laneKey), { snapshot: true })?.until;
  });
}
