/**
 * The webhook outbox on a store: each method one transaction of the rules in this folder. The dispatcher delivers
 * from it (claim, settle, release), the formation timeline stores events with its steps (`storeEvents`, inside its
 * own transaction), and the partner portal lists and redelivers.
 */
import type { Store, Tx } from '../../store/store.ts';
import { listAttempts, forgetAttempts } from './attempt-journal.ts';
import { disableEndpoint, endpointState, forgetEndpointBatch, reenableEndpoint } from './endpoint-states.ts';
import { dropEvent, redeliver, storeEvents, storeFromOutside } from './event-records.ts';
import { claimLanes, nextLaneDueAt, releaseLane, type DeliverySlots } from './lanes.ts';
import { listDeliveries, listEvents } from './outbox-listings.ts';
import { eventsByPartner } from './outbox-tables.ts';
import { settleAttempt } from './settle.ts';
import { numberPart, within } from '../../store/keys.ts';
import type { AttemptRecord, DeliveryOutcome, EndpointDisablement, LaneClaim, OutboxEvent, OutboxOptions } from './outbox-types.ts';

export type WebhookOutbox = ReturnType<typeof webhookOutbox>;

/** Records handled per transaction by a partner's reset. */
const resetBatch = 256;

export function webhookOutbox(store: Store, options: OutboxOptions) {
  return {
    /** Inside a transaction that causes them: stores events and their deliveries. */
    storeEvents: (tx: Tx, events: readonly OutboxEvent[], now: number): void => storeEvents(tx, events, now, options),
    /** Stores events outside a formation step (tests, tools); their deliveries become due at `now`. */
    append: (events: readonly OutboxEvent[], now: number) => store.write((tx) => storeEvents(tx, events, now, options)),
    /** Stores an event from outside (the relay) for the one endpoint it was sent to, once per endpoint. */
    storeFromOutside: (event: OutboxEvent, now: number) => store.write((tx) => storeFromOutside(tx, event, now, options)),
    claim: (now: number, leaseMs: number, limit: number, slots?: DeliverySlots) => store.hold((tx) => claimLanes(tx, now, leaseMs, limit, slots)),
    settle: (claim: LaneClaim, outcome: DeliveryOutcome, attempt: AttemptRecord, now: number) =>
      store.write((tx) => settleAttempt(tx, claim, outcome, attempt, now, options)),
    release: (claim: LaneClaim, _now: number) => store.hold((tx) => releaseLane(tx, claim)),
    /** `partnerId`: whose endpoint it is, for the change it announces (none: the default endpoint, every partner's). */
    disable: (endpointId: string, now: number, partnerId?: string) => store.write((tx) => disableEndpoint(tx, endpointId, now, partnerId)),
    reenable: (endpointId: string, notice: (disabled: EndpointDisablement) => OutboxEvent | undefined, now: number, partnerId?: string) =>
      store.write((tx) => reenableEndpoint(tx, endpointId, notice, now, options, partnerId)),
    endpoint: (endpointId: string) => store.read((tx) => endpointState(tx, endpointId)),
    /** Drops what waits for an endpoint that is going away; its delivered events stay listed. */
    async forgetEndpoint(endpointId: string): Promise<void> {
      while (!(await store.write((tx) => forgetEndpointBatch(tx, endpointId, options))));
    },
    deliveries: (now: number, limit: number, partnerId?: string) => store.read((tx) => listDeliveries(tx, now, limit, options.deliveredCapacity, partnerId)),
    attempts: (limit: number, partnerId?: string) => store.read((tx) => listAttempts(tx, limit, partnerId)),
    events: (partnerId: string, query: { limit: number; before?: number; type?: string }, now: number) => store.read((tx) => listEvents(tx, partnerId, query, now)),
    redeliver: (partnerId: string, eventId: string, endpointId: string, now: number) => store.write((tx) => redeliver(tx, partnerId, eventId, endpointId, now, options)),
    nextDueAt: (slots?: DeliverySlots) => store.read((tx) => nextLaneDueAt(tx, slots)),
    /** Forgets a partner's events (with their deliveries) and attempts; its endpoints go with the portal's reset. */
    async forgetPartner(partnerId: string): Promise<void> {
      while (!(await store.write((tx) => forgetEventsBatch(tx, partnerId))));
      while (!(await store.write((tx) => forgetAttempts(tx, partnerId, resetBatch))));
    },
  };
}

function forgetEventsBatch(tx: Tx, partnerId: string): boolean {
  const entries = tx.scan(eventsByPartner, within([partnerId], { limit: resetBatch }));
  for (const entry of entries) dropEvent(tx, numberPart(entry.key, 1));
  return entries.length < resetBatch;
}
