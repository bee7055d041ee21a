/**
 * The memory backend's webhook outbox: the events, their deliveries waiting in lanes (one endpoint × one ordering
 * key, only the head attempted), the endpoints' disabled state, and the delivery journal. It keeps the rules of
 * store.ts like the other backends; its heap being all it has, it also caps the undelivered events it holds.
 */
import { newClaimToken } from '../claim-token.ts';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  EndpointDisablement,
  LaneClaim,
  OutboxEvent,
  StoredEvent,
  StoreOptions,
  WebhookOutbox,
} from '../store.ts';

interface KeptEvent {
  seq: number;
  id: string;
  partnerId: string;
  type: string;
  orderingKey: string;
  body: string;
  createdAt: number;
  /** Where it was sent, in the order first sent: each endpoint's state and attempts. */
  deliveries: Map<string, { delivered: boolean; attempts: AttemptRecord[] }>;
  /** Deliveries still waiting in a lane: while any, the event is kept whatever the capacity. */
  waiting: number;
}

interface QueuedDelivery {
  event: KeptEvent;
  attempts: number;
  roundAttempts: number;
}

interface Lane {
  endpointId: string;
  laneKey: string;
  priority: boolean;
  queue: QueuedDelivery[];
  dueAt: number;
  /** Breaks ties between lanes due the same millisecond: the one that became due first goes first. */
  dueSeq: number;
  token?: string;
  leaseUntil: number;
  /** The delivery the current claim took. */
  claimed?: QueuedDelivery;
}

const endpointLaneKey = 'webhook_endpoint';
const attemptsShown = 20;

export interface MemoryOutbox {
  outbox: WebhookOutbox;
  /** Stores events at once, for a change committed with them (`timeline.commit`). */
  storeEvents(events: readonly OutboxEvent[], now: number): void;
  /** Forgets everything, or one partner's events, deliveries and journal lines. */
  reset(partnerId?: string): void;
}

export function createMemoryOutbox(options: StoreOptions): MemoryOutbox {
  const events = new Map<number, KeptEvent>();
  const lanes = new Map<string, Lane>();
  const endpoints = new Map<string, EndpointDisablement>();
  const delivered: (DeliveryRecord & { seq: number; partnerId: string })[] = [];
  const attemptJournal: (AttemptRecord & { partnerId: string })[] = [];
  let eventSeq = 0;
  let dueSeq = 0;
  let queued = 0;

  const laneId = (endpointId: string, laneKey: string) => `${endpointId}\u0000${laneKey}`;
  const makeDue = (lane: Lane, at: number) => {
    lane.dueAt = at;
    lane.dueSeq = ++dueSeq;
    lane.token = undefined;
    lane.leaseUntil = 0;
    lane.claimed = undefined;
  };

  const pushAttempt = (attempt: AttemptRecord, partnerId: string) => {
    attemptJournal.push({ ...attempt, partnerId });
    if (attemptJournal.length > options.attemptJournalCapacity) attemptJournal.splice(0, attemptJournal.length - options.attemptJournalCapacity);
  };

  /** Past the capacity, the oldest events with nothing left to deliver go (a Map iterates oldest first). */
  const pruneEvents = () => {
    for (const [seq, event] of events) {
      if (events.size <= options.eventCapacity) return;
      if (event.waiting === 0) events.delete(seq);
    }
  };

  const enqueue = (event: KeptEvent, endpointId: string, now: number): boolean => {
    if (queued >= options.memoryMaxQueuedEvents) {
      options.onDroppedEvent?.({ eventId: event.id, type: event.type, orderingKey: event.orderingKey });
      return false;
    }
    const id = laneId(endpointId, event.orderingKey);
    let lane = lanes.get(id);
    if (!lane) {
      lane = { endpointId, laneKey: event.orderingKey, priority: event.orderingKey === endpointLaneKey, queue: [], dueAt: now, dueSeq: 0, leaseUntil: 0 };
      makeDue(lane, now);
      lanes.set(id, lane);
    }
    const delivery = { event, attempts: 0, roundAttempts: 0 };
    // The endpoint's own lane is newest first: the notice of the latest disablement goes before older ones.
    if (lane.priority) lane.queue.unshift(delivery);
    else lane.queue.push(delivery);
    queued += 1;
    event.waiting += 1;
    const kept = event.deliveries.get(endpointId);
    if (kept) kept.delivered = false;
    else event.deliveries.set(endpointId, { delivered: false, attempts: [] });
    return true;
  };

  const storeEvents = (outboxEvents: readonly OutboxEvent[], now: number) => {
    for (const { partnerId, event, orderingKey, endpointIds, body } of outboxEvents) {
      const kept: KeptEvent = { seq: ++eventSeq, id: event.id, partnerId, type: event.type, orderingKey, body: body ?? JSON.stringify(event), createdAt: now, deliveries: new Map(), waiting: 0 };
      events.set(kept.seq, kept);
      if (endpointIds.length === 0) {
        pushAttempt({ eventId: event.id, type: event.type, orderingKey, attempt: 0, at: new Date(now).toISOString(), durationMs: 0, outcome: 'no-endpoint' }, partnerId);
      }
      for (const endpointId of endpointIds) enqueue(kept, endpointId, now);
    }
    pruneEvents();
  };

  const dequeue = (lane: Lane, delivery: QueuedDelivery) => {
    lane.queue.splice(lane.queue.indexOf(delivery), 1);
    queued -= 1;
    delivery.event.waiting -= 1;
  };

  const stateOf = (lane: Lane, delivery: QueuedDelivery, now: number): DeliveryState =>
    endpoints.has(lane.endpointId) ? 'held' : lane.claimed === delivery && lane.leaseUntil > now ? 'in-flight' : 'pending';

  const outbox: WebhookOutbox = {
    async append(outboxEvents, now) {
      storeEvents(outboxEvents, now);
    },

    async claim(now, leaseMs, limit) {
      const withNotice = new Set([...lanes.values()].filter((lane) => lane.priority && lane.queue.length > 0).map((lane) => lane.endpointId));
      const claimable = [...lanes.values()]
        .filter((lane) => lane.dueAt <= now && lane.leaseUntil <= now && !endpoints.has(lane.endpointId) && (lane.priority || !withNotice.has(lane.endpointId)))
        .sort((a, b) => a.dueAt - b.dueAt || a.dueSeq - b.dueSeq)
        .slice(0, limit);
      return claimable.map((lane): LaneClaim => {
        const head = lane.queue[0] as QueuedDelivery;
        lane.token = newClaimToken();
        lane.leaseUntil = now + leaseMs;
        lane.claimed = head;
        const { event } = head;
        return {
          endpointId: lane.endpointId,
          laneKey: lane.laneKey,
          token: lane.token,
          partnerId: event.partnerId,
          eventId: event.id,
          type: event.type,
          body: event.body,
          attempts: head.attempts,
          roundAttempts: head.roundAttempts,
        };
      });
    },

    async settle(claim, outcome, attempt, now) {
      const lane = lanes.get(laneId(claim.endpointId, claim.laneKey));
      const head = lane?.claimed;
      if (!lane || !head || lane.token !== claim.token || lane.leaseUntil <= now || head.event.id !== claim.eventId || !lane.queue.includes(head)) return false;
      head.attempts += 1;
      head.roundAttempts += 1;
      const { event } = head;
      pushAttempt(attempt, event.partnerId);
      const perEndpoint = event.deliveries.get(claim.endpointId);
      perEndpoint?.attempts.push(attempt);
      if (perEndpoint && perEndpoint.attempts.length > attemptsShown) perEndpoint.attempts.shift();
      if (outcome.kind === 'delivered') {
        dequeue(lane, head);
        if (perEndpoint) perEndpoint.delivered = true;
        delivered.push({ seq: event.seq, partnerId: event.partnerId, eventId: event.id, type: event.type, orderingKey: event.orderingKey, endpointId: claim.endpointId, state: 'delivered', attempts: head.attempts });
        if (delivered.length > options.deliveredCapacity) delivered.splice(0, delivered.length - options.deliveredCapacity);
        if (lane.queue.length === 0) lanes.delete(laneId(lane.endpointId, lane.laneKey));
        else makeDue(lane, now);
        pruneEvents();
        return true;
      }
      if (outcome.kind === 'retry') {
        makeDue(lane, outcome.at);
        return true;
      }
      endpoints.set(claim.endpointId, { at: now, reason: 'failures', failedEventId: claim.eventId });
      makeDue(lane, now);
      return true;
    },

    async release(claim, now) {
      const lane = lanes.get(laneId(claim.endpointId, claim.laneKey));
      if (lane && lane.token === claim.token) makeDue(lane, now);
    },

    async disable(endpointId, now) {
      if (!endpoints.has(endpointId)) endpoints.set(endpointId, { at: now, reason: 'requested', failedEventId: null });
    },

    async reenable(endpointId, notice, now) {
      const disabled = endpoints.get(endpointId);
      if (!disabled) return false;
      endpoints.delete(endpointId);
      for (const lane of lanes.values()) {
        if (lane.endpointId !== endpointId) continue;
        for (const delivery of lane.queue) delivery.roundAttempts = 0;
        if (lane.leaseUntil <= now) makeDue(lane, now);
      }
      const event = notice(disabled);
      if (event) storeEvents([event], now);
      return true;
    },

    async endpoint(endpointId) {
      const disabled = endpoints.get(endpointId);
      return disabled ? { disabled: { ...disabled } } : {};
    },

    async forgetEndpoint(endpointId) {
      endpoints.delete(endpointId);
      for (const [id, lane] of lanes) {
        if (lane.endpointId !== endpointId) continue;
        for (const delivery of [...lane.queue]) {
          dequeue(lane, delivery);
          // What never reached the endpoint is dropped with it, as the other backends drop its queued rows.
          if (delivery.event.deliveries.get(endpointId)?.delivered === false) delivery.event.deliveries.delete(endpointId);
        }
        lanes.delete(id);
      }
    },

    async deliveries(now, limit, partnerId) {
      const mine = <T extends { partnerId: string }>(item: T) => partnerId === undefined || item.partnerId === partnerId;
      const pending = [...lanes.values()]
        .flatMap((lane) =>
          lane.queue.map((delivery) => ({
            seq: delivery.event.seq,
            partnerId: delivery.event.partnerId,
            eventId: delivery.event.id,
            type: delivery.event.type,
            orderingKey: delivery.event.orderingKey,
            endpointId: lane.endpointId,
            state: stateOf(lane, delivery, now),
            attempts: delivery.attempts,
          })),
        )
        .filter(mine)
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit);
      return [...delivered.filter(mine), ...pending]
        .sort((a, b) => a.seq - b.seq)
        .map(({ seq: _seq, partnerId: _partner, ...record }) => record);
    },

    async attempts(limit, partnerId) {
      return attemptJournal
        .filter((attempt) => partnerId === undefined || attempt.partnerId === partnerId)
        .slice(-limit)
        .map(({ partnerId: _partner, ...attempt }) => attempt);
    },

    async events(partnerId, { limit, before, type }, now) {
      const waitingState = new Map<string, DeliveryState>();
      for (const lane of lanes.values()) {
        for (const delivery of lane.queue) {
          if (delivery.event.partnerId === partnerId) waitingState.set(`${delivery.event.seq}\u0000${lane.endpointId}`, stateOf(lane, delivery, now));
        }
      }
      const items: StoredEvent[] = [];
      const newestFirst = [...events.values()].reverse();
      let next: number | undefined;
      for (const event of newestFirst) {
        if (event.partnerId !== partnerId || (before !== undefined && event.seq >= before) || (type !== undefined && event.type !== type)) continue;
        if (items.length === limit) {
          next = (items.at(-1) as StoredEvent).seq;
          break;
        }
        items.push({
          seq: event.seq,
          id: event.id,
          type: event.type,
          orderingKey: event.orderingKey,
          createdAt: event.createdAt,
          body: event.body,
          deliveries: [...event.deliveries].map(([endpointId, { delivered: done, attempts }]) => ({
            endpointId,
            state: done ? 'delivered' : (waitingState.get(`${event.seq}\u0000${endpointId}`) ?? 'pending'),
            attempts: [...attempts],
          })),
        });
      }
      return next === undefined ? { items } : { items, next };
    },

    async redeliver(partnerId, eventId, endpointId, now) {
      const event = [...events.values()].find((candidate) => candidate.id === eventId && candidate.partnerId === partnerId);
      if (!event) return false;
      enqueue(event, endpointId, now);
      return true;
    },

    async nextDueAt() {
      let earliest: number | undefined;
      for (const lane of lanes.values()) {
        if (endpoints.has(lane.endpointId)) continue;
        const at = Math.max(lane.dueAt, lane.leaseUntil);
        if (earliest === undefined || at < earliest) earliest = at;
      }
      return earliest;
    },
  };

  return {
    outbox,
    storeEvents,
    reset(partnerId) {
      if (partnerId === undefined) {
        events.clear();
        lanes.clear();
        endpoints.clear();
        delivered.length = 0;
        attemptJournal.length = 0;
        queued = 0;
        return;
      }
      for (const [seq, event] of events) if (event.partnerId === partnerId) events.delete(seq);
      for (const [id, lane] of lanes) {
        for (const delivery of lane.queue.filter((candidate) => candidate.event.partnerId === partnerId)) dequeue(lane, delivery);
        if (lane.queue.length === 0) lanes.delete(id);
      }
      const keep = <T extends { partnerId: string }>(list: T[]) => list.splice(0, list.length, ...list.filter((item) => item.partnerId !== partnerId));
      keep(delivered);
      keep(attemptJournal);
    },
  };
}
