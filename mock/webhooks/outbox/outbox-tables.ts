/**
 * The outbox's tables. An event is stored once (by a global `seq`); each endpoint it goes to gets a delivery (by a
 * global `position`, which also orders a lane's queue: a redelivery, a new position, goes after what waits); a lane
 * (endpoint × ordering key) exists while it has pending deliveries, and is on `lanes_due` while its endpoint is
 * enabled. Claims are ephemeral: they die with the process that holds them.
 */
import { table } from '../../store/store.ts';
import type { AttemptRecord, EndpointDisablement } from './outbox-types.ts';

/** The lanes of events the webhook relay received from a sandbox (`relay:` and the company's id). */
export const relayLanePrefix = 'relay:';
/** The ordering key of an endpoint's own events (`webhook_endpoint.disabled`): its lane goes first, newest first. */
export const endpointLaneKey = 'webhook_endpoint';

export interface EventRow {
  id: string;
  partnerId: string;
  type: string;
  orderingKey: string;
  body: string;
  createdAt: number;
  /** Deliveries still pending: while any, the event is kept whatever the capacity. */
  waiting: number;
}

export interface DeliveryRow {
  eventSeq: number;
  endpointId: string;
  laneKey: string;
  partnerId: string;
  /** `dropped`: never queued, its partner's queue being full (never attempted; listed with its event). */
  state: 'pending' | 'delivered' | 'dropped';
  attempts: number;
  /** The endpoint's round (re-enables) when `roundAttempts` was counted: another round counts from 0. */
  round: number;
  roundAttempts: number;
  /** Where it stands among the delivered (overall and its partner's), once delivered. */
  deliveredOrder?: number;
}

export interface LaneRow {
  dueAt: number;
  /** Orders lanes due the same millisecond: the one that became due first goes first. */
  dueSeq: number;
}

export interface LaneClaimRow {
  token: string;
  until: number;
  /** The delivery the claim took. */
  position: number;
}

export const events = table<EventRow>('outbox_events', { ordered: true });
/** partner, event id → seq. */
export const eventIds = table<number>('outbox_event_ids');
/** partner, seq; partner, type, seq: a partner's events newest first, of one type. */
export const eventsByPartner = table<number>('outbox_events_by_partner', { ordered: true });
export const eventsByType = table<number>('outbox_events_by_type', { ordered: true });
/** partner, seq: a partner's events with nothing pending, oldest first: the first to go past its capacity. */
export const eventsDone = table<number>('outbox_events_done', { ordered: true });

export const deliveries = table<DeliveryRow>('outbox_deliveries');
/** endpoint, lane key, position → event seq: a lane's pending deliveries, its queue. */
export const deliveriesByLane = table<number>('outbox_deliveries_by_lane', { ordered: true });
/** event seq, position: an event's deliveries. */
export const deliveriesByEvent = table<number>('outbox_deliveries_by_event', { ordered: true });
/** endpoint, position → event seq: an endpoint's deliveries, whatever their state, which go with it. */
export const deliveriesByEndpoint = table<number>('outbox_deliveries_by_endpoint', { ordered: true });
/** position; partner, position: pending deliveries, oldest first. */
export const pending = table<number>('outbox_pending', { ordered: true });
export const pendingByPartner = table<number>('outbox_pending_by_partner', { ordered: true });
/** order → position; partner, order → position: the most recently delivered. */
export const delivered = table<number>('outbox_delivered', { ordered: true });
export const deliveredByPartner = table<number>('outbox_delivered_by_partner', { ordered: true });

/** endpoint, lane key → its due time. */
export const lanes = table<LaneRow>('outbox_lanes', { ordered: true });
/** endpoint, due time, due seq, lane key: each endpoint's lanes in the order they fall due. */
export const lanesDue = table<number>('outbox_lanes_due', { ordered: true });
/** due time, due seq, endpoint: the enabled endpoints with lanes, in the order their earliest lane falls due. */
export const endpointsDue = table<number>('outbox_endpoints_due', { ordered: true });
/** endpoint → its entry in `endpointsDue` (due time, due seq). */
export const endpointDue = table<[number, number]>('outbox_endpoint_due');
export const laneClaims = table<LaneClaimRow>('outbox_lane_claims', { ephemeral: true });

/** endpoint → why it is disabled (absent: enabled). */
export const endpointStates = table<EndpointDisablement>('outbox_endpoint_states');
/** endpoint → how many times it was re-enabled. */
export const endpointRounds = table<number>('outbox_endpoint_rounds');

/** id → attempt: the delivery journal, oldest first. */
export const attempts = table<{ partnerId: string; record: AttemptRecord }>('outbox_attempts', { ordered: true });
/** partner, id; event id, endpoint, id: a partner's attempts, an event's attempts at one endpoint. */
export const attemptsByPartner = table<number>('outbox_attempts_by_partner', { ordered: true });
export const attemptsByEvent = table<number>('outbox_attempts_by_event', { ordered: true });

/** done:PARTNER, pending:PARTNER, attempts:PARTNER, delivered, delivered:PARTNER → how many. */
export const counts = table<number>('outbox_counts');
