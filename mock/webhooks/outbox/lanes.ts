/**
 * Delivery lanes: one endpoint × one ordering key, a queue of pending deliveries of which only the head is ever
 * attempted, held by one claim at a time. That is what keeps a company's events in order at each endpoint.
 *
 * Due work is indexed on two levels: each endpoint's lanes in the order they fall due (`lanesDue`), and the enabled
 * endpoints in the order their earliest lane falls due (`endpointsDue`). Claiming walks endpoints, taking from each
 * only what its free slots allow: an endpoint that hangs, or a partner with thousands of companies, costs one index
 * entry to pass, and never keeps another endpoint's due lanes waiting; within an endpoint lanes go in the order
 * they fell due, so a busy company cannot starve a quiet one.
 */
import { key, numberPart, parts, within } from '../../store/keys.ts';
import type { ReadOptions, Tx } from '../../store/store.ts';
import { newClaimToken } from '../../leases/claim-token.ts';
import { nextDueAt, takeDue, visitDue } from '../../leases/due-work.ts';
import { deliveries, deliveriesByEndpoint, deliveriesByLane, endpointDue, endpointLaneKey, endpointRounds, endpointStates, endpointsDue, events, laneClaims, lanes, lanesDue, type LaneClaimRow, type LaneRow } from './outbox-tables.ts';
import type { LaneClaim } from './outbox-types.ts';
import { announce } from '../../changes/change-topics.ts';

const dueKey = (lane: LaneRow, endpointId: string, laneKey: string) => key(endpointId, lane.dueAt, lane.dueSeq, laneKey);
/** The endpoint's own lane (its `webhook_endpoint.disabled` notices), while it has one: only it is claimed then. */
const ownLane = (tx: Tx, endpointId: string, options?: ReadOptions) => tx.get(lanes, key(endpointId, endpointLaneKey), options);

/** Makes the lane free and due at `at` (made if new), behind the lanes that became due the same millisecond. */
export function makeLaneDue(tx: Tx, endpointId: string, laneKey: string, at: number): void {
  placeLane(tx, endpointId, laneKey, at);
  indexEndpoint(tx, endpointId);
}

/**
 * `makeLaneDue` without placing the endpoint among those due: for a transaction that moves many lanes of one
 * endpoint (a re-enabling), which then calls `indexEndpoint` once.
 */
export function placeLane(tx: Tx, endpointId: string, laneKey: string, at: number): void {
  const before = tx.get(lanes, key(endpointId, laneKey));
  if (before) tx.delete(lanesDue, dueKey(before, endpointId, laneKey));
  const lane = { dueAt: at, dueSeq: tx.allocate('outbox_lane_due') };
  tx.put(lanes, key(endpointId, laneKey), lane);
  tx.put(lanesDue, dueKey(lane, endpointId, laneKey), 1);
  tx.delete(laneClaims, key(endpointId, laneKey));
}

/** A lane with nothing left to send goes. */
export function dropLane(tx: Tx, endpointId: string, laneKey: string): void {
  removeLane(tx, endpointId, laneKey);
  indexEndpoint(tx, endpointId);
}

/** `dropLane` without placing the endpoint again: the caller calls `indexEndpoint` once it is done. */
export function removeLane(tx: Tx, endpointId: string, laneKey: string): void {
  const lane = tx.get(lanes, key(endpointId, laneKey));
  if (lane) tx.delete(lanesDue, dueKey(lane, endpointId, laneKey));
  tx.delete(lanes, key(endpointId, laneKey));
  tx.delete(laneClaims, key(endpointId, laneKey));
}

/**
 * Puts the endpoint where its earliest lane says among the endpoints due, or takes it off when it has no lane or
 * is disabled (its lanes then wait, in their order, for its re-enabling).
 */
export function indexEndpoint(tx: Tx, endpointId: string): void {
  const enabled = tx.get(endpointStates, endpointId) === undefined;
  const next = enabled ? firstClaimable(tx, endpointId) : undefined;
  const was = tx.get(endpointDue, endpointId);
  if (was && next && was[0] === next[0] && was[1] === next[1]) return;
  if (was) tx.delete(endpointsDue, key(was[0], was[1], endpointId));
  if (next) {
    tx.put(endpointsDue, key(next[0], next[1], endpointId), 1);
    tx.put(endpointDue, endpointId, [next[0], next[1]]);
  } else if (was) tx.delete(endpointDue, endpointId);
}

/**
 * Where the endpoint's first claimable lane falls due: its own lane while it has one (nothing else of it is claimed
 * until its notice is delivered, so lanes due earlier behind it are not due), else its earliest lane.
 */
function firstClaimable(tx: Tx, endpointId: string): readonly [number, number] | undefined {
  const own = ownLane(tx, endpointId);
  if (own) return [own.dueAt, own.dueSeq];
  const [first] = tx.scan(lanesDue, within([endpointId], { limit: 1 }));
  return first ? [numberPart(first.key, 1), numberPart(first.key, 2)] : undefined;
}

/** The position of a lane's head: the oldest pending delivery, or on the endpoint's own lane the newest. */
export function laneHead(tx: Tx, endpointId: string, laneKey: string): number | undefined {
  const [head] = tx.scan(deliveriesByLane, within([endpointId, laneKey], { reverse: laneKey === endpointLaneKey, limit: 1 }));
  return head === undefined ? undefined : numberPart(head.key, 2);
}

/**
 * The attempts this process may have in flight, per endpoint and per partner, and how many each has: an endpoint
 * that hangs holds its own slots only, and a partner its own share, so others' deliveries go on beside them.
 */
export interface DeliverySlots {
  /** Attempts an endpoint may have in flight from this process, and how many it has. */
  perEndpoint: number;
  inFlight: ReadonlyMap<string, number>;
  /** Attempts a partner may have in flight from this process, across its endpoints, and how many it has. */
  perPartner: number;
  inFlightByPartner: ReadonlyMap<string, number>;
}

const freeSlots = (slots: DeliverySlots | undefined, endpointId: string) =>
  slots === undefined ? Number.POSITIVE_INFINITY : slots.perEndpoint - (slots.inFlight.get(endpointId) ?? 0);

/**
 * The slots left to the partner an endpoint belongs to (read from one of its deliveries): a partner with many
 * endpoints that hang holds its own share of the process's slots, never all of them.
 */
function partnerRoom(tx: Tx, slots: DeliverySlots | undefined, endpointId: string, taken: ReadonlyMap<string, number>): { partnerId?: string; room: number } {
  if (slots === undefined) return { room: Number.POSITIVE_INFINITY };
  const [first] = tx.scan(deliveriesByEndpoint, within([endpointId], { limit: 1 }), { snapshot: true });
  const partnerId = first === undefined ? undefined : tx.get(deliveries, key(numberPart(first.key, 1)), { snapshot: true })?.partnerId;
  if (partnerId === undefined) return { room: Number.POSITIVE_INFINITY };
  return { partnerId, room: slots.perPartner - (slots.inFlightByPartner.get(partnerId) ?? 0) - (taken.get(partnerId) ?? 0) };
}

/**
 * Claims up to `limit` lanes whose head is due by `now`, that nobody holds: endpoint by endpoint in the order their
 * earliest lane fell due, from each at most its free slots, its lanes in the order they fell due. While an endpoint
 * has an event of its own waiting (`webhook_endpoint.disabled`), only that lane of the endpoint is claimed. A hold.
 */
export function claimLanes(tx: Tx, now: number, leaseMs: number, limit: number, slots?: DeliverySlots): LaneClaim[] {
  const claims: LaneClaim[] = [];
  // Counted per run of the body (a body may run again on Redis): what this run took, per partner.
  const takenByPartner = new Map<string, number>();
  visitDue(tx, endpointsDue, now, (entry) => {
    const endpointId = parts(entry.key)[2] as string;
    const endpointRoom = Math.min(freeSlots(slots, endpointId), limit - claims.length);
    if (endpointRoom <= 0) return undefined;
    const partner = partnerRoom(tx, slots, endpointId, takenByPartner);
    const room = Math.min(endpointRoom, partner.room);
    if (room <= 0) return undefined;
    const before = claims.length;
    // Its own lane first and alone: walking the lanes waiting behind it would find none claimable, on every round.
    const own = ownLane(tx, endpointId);
    if (own) {
      const claim = own.dueAt <= now ? claimLane(tx, endpointId, endpointLaneKey, now, leaseMs) : undefined;
      if (claim) claims.push(claim);
    } else claims.push(...takeDue(tx, lanesDue, now, room, (laneEntry) => claimLane(tx, endpointId, parts(laneEntry)[3] as string, now, leaseMs), [endpointId]));
    if (partner.partnerId !== undefined) takenByPartner.set(partner.partnerId, (takenByPartner.get(partner.partnerId) ?? 0) + claims.length - before);
    return claims.length === limit ? 'stop' : undefined;
  });
  return claims;
}

function claimLane(tx: Tx, endpointId: string, laneKey: string, now: number, leaseMs: number): LaneClaim | undefined {
  const held = tx.get(laneClaims, key(endpointId, laneKey));
  if (held && held.until > now) return undefined;
  if (laneKey !== endpointLaneKey && ownLane(tx, endpointId) !== undefined) return undefined;
  const position = laneHead(tx, endpointId, laneKey);
  const delivery = position === undefined ? undefined : tx.get(deliveries, key(position));
  const event = delivery === undefined ? undefined : tx.get(events, key(delivery.eventSeq));
  if (position === undefined || !delivery || !event) return undefined;
  const token = newClaimToken();
  tx.put(laneClaims, key(endpointId, laneKey), { token, until: now + leaseMs, position });
  // Its delivery is in flight now.
  announce(tx, 'events', event.partnerId);
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

const noneTaken: ReadonlyMap<string, number> = new Map();

/**
 * When a lane on an enabled endpoint is next due or its lease runs out; undefined when nothing waits. Endpoints
 * with no free slot (their own, or their partner's) do not count: one of their attempts ending wakes the dispatcher.
 */
export function nextLaneDueAt(tx: Tx, slots?: DeliverySlots): number | undefined {
  let earliest: number | undefined;
  visitDue(tx, endpointsDue, undefined, (entry) => {
    const dueAt = numberPart(entry.key, 0);
    if (earliest !== undefined && dueAt >= earliest) return 'stop';
    const endpointId = parts(entry.key)[2] as string;
    if (freeSlots(slots, endpointId) <= 0 || partnerRoom(tx, slots, endpointId, noneTaken).room <= 0) return undefined;
    const heldUntil = (laneEntry: string) => tx.get(laneClaims, key(endpointId, parts(laneEntry)[3] as string), { snapshot: true })?.until;
    const own = ownLane(tx, endpointId, { snapshot: true });
    // While it has its own lane, that lane alone can be claimed: when it is free (or its lease runs out) is when.
    const ownHeld = own && tx.get(laneClaims, key(endpointId, endpointLaneKey), { snapshot: true })?.until;
    const at = own ? Math.max(own.dueAt, ownHeld ?? own.dueAt) : nextDueAt(tx, lanesDue, heldUntil, [endpointId]);
    if (at !== undefined) earliest = earliest === undefined ? at : Math.min(earliest, at);
    // Its earliest lane is free: no endpoint after it can be due sooner.
    return at === dueAt ? 'stop' : undefined;
  });
  return earliest;
}
