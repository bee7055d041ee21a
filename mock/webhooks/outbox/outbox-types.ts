/** What the webhook outbox stores and answers: events with where they go, claims on lanes, attempts, listings. */
import type { WebhookEvent } from '../event-payloads.ts';

/** An event to store with the change that causes it, and the endpoints it is to be delivered to. */
export interface OutboxEvent {
  partnerId: string;
  event: WebhookEvent;
  /** Events of one key are delivered in order: the company id, or `webhook_endpoint` for the endpoint's own. */
  orderingKey: string;
  /** Where it goes; none means it is only kept (journaled as `no-endpoint`). */
  endpointIds: readonly string[];
  /** The exact JSON to send, when it exists already (a redelivery sends the same bytes); otherwise `event`'s JSON. */
  body?: string;
}

/**
 * The head of one delivery lane (one endpoint × one ordering key), claimed for one attempt. Only a lane's head is
 * ever attempted, and a lane is held by one claim at a time: that is what keeps a company's events in order.
 */
export interface LaneClaim {
  endpointId: string;
  laneKey: string;
  token: string;
  partnerId: string;
  eventId: string;
  type: string;
  /** The event's JSON, exactly as first stored: every attempt sends these bytes. */
  body: string;
  /** Attempts made before this one, across re-enables. */
  attempts: number;
  /** Attempts since the endpoint was last (re-)enabled: what picks the next retry delay. */
  roundAttempts: number;
}

export type DeliveryOutcome =
  | { kind: 'delivered' }
  /** Failed; the lane's head is tried again at `at`. */
  | { kind: 'retry'; at: number }
  /** Failed, and it was the last attempt of the schedule: the endpoint is disabled and its lanes are held. */
  | { kind: 'disable' };

export type AttemptOutcome = 'delivered' | 'failed' | 'disabled' | 'no-endpoint' | 'dropped';

/** One line of the delivery journal. */
export interface AttemptRecord {
  eventId: string;
  /** The endpoint attempted; absent when nothing was sent (`no-endpoint`). */
  endpointId?: string;
  type: string;
  orderingKey: string;
  /** 1 for the first attempt of the event; 0 when nothing was sent (`no-endpoint`). */
  attempt: number;
  /** When the attempt started (ISO 8601). */
  at: string;
  status?: number;
  error?: string;
  durationMs: number;
  outcome: AttemptOutcome;
}

/** `held`: waiting for the endpoint to be re-enabled; `dropped`: never queued, its partner's queue being full. */
export type DeliveryState = 'pending' | 'in-flight' | 'delivered' | 'held' | 'dropped';

export interface DeliveryRecord {
  eventId: string;
  type: string;
  orderingKey: string;
  endpointId: string;
  state: DeliveryState;
  /** Attempts made so far, across re-enables. */
  attempts: number;
}

/** Why an endpoint holds its events: its deliveries kept failing, or its partner switched it off. */
export interface EndpointDisablement {
  at: number;
  reason: 'failures' | 'requested';
  /** The event whose last attempt failed (`failures` only). */
  failedEventId: string | null;
}

export interface EndpointState {
  disabled?: EndpointDisablement;
}

/** An event as kept, with where it went. */
export interface StoredEvent {
  /** Its position among all events, newest highest: what a page continues from. */
  seq: number;
  id: string;
  type: string;
  orderingKey: string;
  createdAt: number;
  /** The JSON every attempt sends. */
  body: string;
  /** One per endpoint it was sent to (a redelivery adds its attempts to the endpoint's), in the order first sent. */
  deliveries: { endpointId: string; state: DeliveryState; attempts: AttemptRecord[] }[];
}

export interface EventPage {
  /** Newest first. */
  items: StoredEvent[];
  /** The `seq` to continue before; absent on the last page. */
  next?: number;
}

/** What the outbox keeps, each a partner's own: what one partner does never pushes another's out or fills its queue. */
export interface OutboxOptions {
  /** Webhook attempts a partner's delivery journal keeps, newest last. */
  attemptsKeptPerPartner: number;
  /** Delivered events listed by `deliveries()`, overall and per partner. */
  deliveredCapacity: number;
  /** Events a partner keeps once nothing is left to deliver, newest first; undelivered ones are always kept. */
  eventsKeptPerPartner: number;
  /**
   * Undelivered deliveries a partner may have waiting (the memory store, whose heap is all it has); past it, that
   * partner's new ones are dropped, and no other partner's.
   */
  maxQueuedPerPartner: number;
  /** Told of a delivery dropped for `maxQueuedPerPartner`. */
  onDropped?: (event: { partnerId: string; eventId: string; type: string; orderingKey: string }) => void;
}

export const defaultOutboxOptions: OutboxOptions = {
  attemptsKeptPerPartner: 10_000,
  deliveredCapacity: 1_000,
  eventsKeptPerPartner: 10_000,
  maxQueuedPerPartner: Number.POSITIVE_INFINITY,
};
