/**
 * Everything the mock remembers, behind one interface with three backends (memory, SQLite, Redis; see
 * open-store.ts). Handlers, the formation timeline, the webhook dispatcher and the admin routes only ever talk to
 * this interface, so none of them can tell which backend runs.
 *
 * Rules every backend keeps, and the conformance suite (tests/mock/store) checks on all three:
 * - Every method is atomic on its own. Where a state change causes webhook events (a formation step, re-enabling
 *   an endpoint), the change and its events are written by one method, so they are stored together or not at all.
 * - Data is partitioned by partner (the id derived from the API key); a partner's positions (`seq`) count only its
 *   own records, so a cursor tells it nothing of another partner's activity.
 * - Work that one process must do exactly once (a formation step, a webhook delivery) is taken with a claim: a
 *   random token and a lease. A claim whose holder died expires and can be taken again; a commit made with a
 *   claim that is no longer held changes nothing and says so.
 * - Time is always passed in (`now`, epoch milliseconds), never read from the backend's clock, so that tests can
 *   move it and replicas agree on it.
 */
import type { Company, Customer, Document, EntityType, FormationStatus } from '../../generated/openapi.js';
import type { WebhookEvent } from '../webhooks/events.ts';
import type { RateBuckets } from './rate-buckets.ts';

/** A due time that never comes: the step of a formation on the manual timeline waits for a simulation. */
export const never = 8_640_000_000_000_000;

export interface Store {
  /**
   * Whether other processes may write the same data (SQLite file, Redis): then the timeline and the dispatcher
   * also look for work on a timer, not only when this process schedules it.
   */
  readonly shared: boolean;
  /** What it is, for logs and health: `memory`, `sqlite:/abs/path.db` or `redis://host:port/db` (never a password). */
  readonly description: string;
  readonly customers: CustomerRecords;
  readonly companies: CompanyRecords;
  readonly documents: DocumentRecords;
  readonly idempotency: IdempotencyRecords;
  readonly timeline: FormationTimeline;
  readonly outbox: WebhookOutbox;
  readonly webhookEndpoints: WebhookEndpointRecords;
  readonly journal: RequestJournalRecords;
  /** The rate limiter's buckets: in the answering process, for every backend (see rate-buckets.ts for why). */
  readonly rateBuckets: RateBuckets;
  /**
   * A named secret made once (by `create`) and then shared by every process on the store and kept across
   * restarts: the keys that sign cursors and download URLs, a generated webhook secret.
   */
  secret(name: string, create: () => string): Promise<string>;
  /** Empties the store; with a partner, only that partner's records (its customers, companies, documents, keys, steps, events, webhook endpoints and journal). */
  reset(partnerId?: string): Promise<void>;
  close(): Promise<void>;
}

/** How a backend is opened; the same for all three. */
export interface StoreOptions {
  /** How long a completed idempotency record is kept (the contract publishes 24 hours). */
  idempotencyTtlMs: number;
  /** Records kept per partner; past it that partner's oldest are dropped. Never shared between partners. */
  idempotencyMaxRecordsPerPartner: number;
  /** What the request journal may hold, in bytes of its entries' JSON; the oldest entries go first. */
  journalMaxBytes: number;
  /** Webhook attempts kept in the delivery journal, newest last. */
  attemptJournalCapacity: number;
  /** Delivered events listed by `outbox.deliveries()`. */
  deliveredCapacity: number;
  /** Events kept for `outbox.events()` once nothing is left to deliver, newest first; undelivered ones are always kept. */
  eventCapacity: number;
  /**
   * Undelivered events the memory backend holds (while an endpoint is disabled, say) before it drops new ones: its
   * heap is all it has. SQLite and Redis keep every undelivered event.
   */
  memoryMaxQueuedEvents: number;
  /** Told of events the memory backend had to drop. */
  onDroppedEvent?: (event: { eventId: string; type: string; orderingKey: string }) => void;
}

export const defaultStoreOptions: StoreOptions = {
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  idempotencyMaxRecordsPerPartner: 100_000,
  journalMaxBytes: 16 * 1024 * 1024,
  attemptJournalCapacity: 10_000,
  deliveredCapacity: 1_000,
  eventCapacity: 10_000,
  memoryMaxQueuedEvents: 10_000,
};

// ── Customers, companies, documents ───────────────────────────────────────────────────────────────────────────

export type CustomerRecord = Omit<Customer, 'created' | 'companies'>;

export interface PageRequest {
  limit: number;
  /** Position of the last item of the previous page (its `seq`); absent for the first page. */
  after?: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** Position of the last item returned, to continue from. */
  last?: number;
}

export interface CustomerRecords {
  /** Creates the customer unless the partner has one with the same email (case-insensitive), which is returned instead. */
  create(partnerId: string, customer: CustomerRecord): Promise<{ customer: CustomerRecord; created: boolean }>;
  get(partnerId: string, customerId: string): Promise<CustomerRecord | undefined>;
  /** Newest first; positions count down from `page.after`. */
  list(partnerId: string, filter: { email?: string }, page: PageRequest): Promise<Page<CustomerRecord>>;
}

export interface CompanyFilter {
  serviceCustomerId?: string;
  status?: FormationStatus;
  entityType?: EntityType;
}

/** Companies are written by the formation timeline only (`timeline.insert` and `timeline.commit`). */
export interface CompanyRecords {
  get(partnerId: string, companyId: string): Promise<Company | undefined>;
  /** Newest first. */
  list(partnerId: string, filter: CompanyFilter, page: PageRequest): Promise<Page<Company>>;
  /** The customer's companies, newest first, at most `limit`. */
  ofCustomer(partnerId: string, customerId: string, limit: number): Promise<Company[]>;
}

export interface StoredDocument {
  document: Document;
  file: Uint8Array;
}

/** Documents are written by the formation timeline only (with the step that makes them ready). */
export interface DocumentRecords {
  /** In the order they became ready. */
  list(partnerId: string, companyId: string, page: PageRequest): Promise<Page<Document>>;
  get(partnerId: string, companyId: string, documentId: string): Promise<StoredDocument | undefined>;
  /** For signed download URLs, which carry no key: the signed ids are the capability. */
  getAnyPartner(companyId: string, documentId: string): Promise<StoredDocument | undefined>;
}

// ── Idempotency ──────────────────────────────────────────────────────────────────────────────────────────────

/** An answer as stored for replay: its bytes, not a parsed tree. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

export type IdempotencyRecord =
  | { state: 'in-flight'; fingerprint: string }
  | { state: 'done'; fingerprint: string; response: StoredResponse };

/** One create's hold on its key: the scope (operation and key) within the partner, and who holds it. */
export interface IdempotencyLock {
  partnerId: string;
  scope: string;
  /** Unique per request, across processes: only the holder completes, renews or abandons the record. */
  owner: string;
}

export type IdempotencyBegin = { began: true } | { began: false; record: IdempotencyRecord };

export interface IdempotencyRecords {
  /**
   * Atomically, across every process on the store: the live record of this scope, or, when there is none (or only
   * an in-flight one whose lock has expired, its holder gone), a new in-flight record held by `lock.owner` until
   * `now + lockMs`. The record is kept `idempotencyTtlMs` from now. Past the per-partner cap, that partner's oldest
   * completed records are dropped: never another partner's, and never a create still in flight.
   */
  begin(lock: IdempotencyLock, fingerprint: string, now: number, lockMs: number): Promise<IdempotencyBegin>;
  /** Extends the lock of a request still running; false when the owner no longer holds it. */
  renew(lock: IdempotencyLock, now: number, lockMs: number): Promise<boolean>;
  /**
   * Stores the answer for replay; false (and nothing stored) when the owner no longer holds the lock. The key stays
   * held until the answer is stored, so a retry meanwhile meets the lock, never an empty key.
   */
  complete(lock: IdempotencyLock, response: StoredResponse, now: number): Promise<boolean>;
  /** Frees the key (a 5xx or 429 is not stored), if the owner still holds it. */
  abandon(lock: IdempotencyLock): Promise<void>;
  /** Live records of the partner, in flight or done. */
  count(partnerId: string, now: number): Promise<number>;
}

// ── Formation timeline ───────────────────────────────────────────────────────────────────────────────────────

/** A hold on one company's formation: its steps run under it, one process at a time. */
export interface StepClaim {
  partnerId: string;
  companyId: string;
  token: string;
  /** When the claimed step was due (`never` on the manual timeline). */
  dueAt: number;
}

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

export interface CompanyChange {
  company: Company;
  /** A document that became ready with this step. */
  document?: StoredDocument;
  events: readonly OutboxEvent[];
}

/** After a commit: keep holding the claim (more steps follow at once), schedule the next step, or end the timeline. */
export type NextStep = { keep: true } | { dueAt: number } | { done: true };

export type CompanyClaim = StepClaim | 'busy' | 'none';

export interface FormationTimeline {
  /** Stores a new company and its first step, due at `dueAt` (`never` on the manual timeline), together. */
  insert(partnerId: string, company: Company, dueAt: number): Promise<void>;
  /** Claims up to `limit` steps due by `now` that nobody holds (or whose holder's lease ran out), earliest first. */
  claimDue(now: number, leaseMs: number, limit: number): Promise<StepClaim[]>;
  /**
   * Claims a company's timeline whatever its due time (for a simulation): `busy` while another holder's lease
   * runs, `none` when the company has no step left.
   */
  claim(partnerId: string, companyId: string, now: number, leaseMs: number): Promise<CompanyClaim>;
  /**
   * If the claim is still held: writes the change (company, document, events) and then keeps the claim,
   * reschedules the next step (releasing the claim), or ends the timeline. False, with nothing written, when the
   * claim was lost (its lease ran out and another process took the step).
   */
  commit(claim: StepClaim, change: CompanyChange | undefined, next: NextStep, now: number): Promise<boolean>;
  /**
   * The earliest time a step may be claimed: a free step's due time; for a held one, the later of its due time and
   * the end of its lease (so a lease run out on a step that is never due does not read as work due now). Undefined
   * when no step waits.
   */
  nextDueAt(): Promise<number | undefined>;
}

// ── Webhook outbox ───────────────────────────────────────────────────────────────────────────────────────────

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

export type AttemptOutcome = 'delivered' | 'failed' | 'disabled' | 'no-endpoint';

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

/** `held`: waiting for the endpoint to be re-enabled. */
export type DeliveryState = 'pending' | 'in-flight' | 'delivered' | 'held';

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

export interface WebhookOutbox {
  /** Stores events outside a formation step (tests, tools); their deliveries become due at `now`. */
  append(events: readonly OutboxEvent[], now: number): Promise<void>;
  /**
   * Claims up to `limit` lanes whose head is due by `now`, on enabled endpoints, that nobody holds: in the order
   * they became due, so a busy company cannot starve a quiet one. While an endpoint has an event of its own
   * waiting (`webhook_endpoint.disabled`), only that lane of the endpoint is claimed.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<LaneClaim[]>;
  /** Records the attempt's outcome and journal line if the claim is still held, and releases the lane. */
  settle(claim: LaneClaim, outcome: DeliveryOutcome, attempt: AttemptRecord, now: number): Promise<boolean>;
  /**
   * Gives the lane back at once, counting no attempt (an attempt cut short by a shutdown, which says nothing of the
   * receiver): its head is due again at `now`. Nothing happens when the claim is no longer held.
   */
  release(claim: LaneClaim, now: number): Promise<void>;
  /**
   * Disables an endpoint on its partner's request: its events are held until it is re-enabled. An endpoint already
   * disabled (after failures, say) stays as it is.
   */
  disable(endpointId: string, now: number): Promise<void>;
  /**
   * Re-enables a disabled endpoint: stores the event `notice` makes of the disablement (if any) ahead of everything
   * of that endpoint, and starts every held event on a fresh retry schedule. False (and nothing stored) when the
   * endpoint was not disabled.
   */
  reenable(endpointId: string, notice: (disabled: EndpointDisablement) => OutboxEvent | undefined, now: number): Promise<boolean>;
  endpoint(endpointId: string): Promise<EndpointState>;
  /**
   * Drops what waits for an endpoint that is going away: its undelivered deliveries, its lanes and its state. Its
   * delivered ones stay listed with their events.
   */
  forgetEndpoint(endpointId: string): Promise<void>;
  /**
   * The most recently delivered events (up to `deliveredCapacity`) and at most `limit` undelivered ones, in the order
   * stored, only `partnerId`'s when given: a read costs a bounded amount however large a backlog a disabled endpoint
   * holds. Which undelivered ones, when more wait, is the backend's choice.
   */
  deliveries(now: number, limit: number, partnerId?: string): Promise<DeliveryRecord[]>;
  /** The newest `limit` lines of the delivery journal, oldest first; only `partnerId`'s when given. */
  attempts(limit: number, partnerId?: string): Promise<AttemptRecord[]>;
  /**
   * A partner's events, newest first, a page of at most `limit` before `before` (a `seq`), of one `type` when given,
   * each with its deliveries and their newest 20 attempts.
   */
  events(partnerId: string, query: { limit: number; before?: number; type?: string }, now: number): Promise<EventPage>;
  /**
   * Sends a partner's event again to one endpoint, the same bytes under the same id, after whatever already waits in
   * that endpoint's lane for the event's company, on a fresh retry schedule. False when the partner has no such event.
   */
  redeliver(partnerId: string, eventId: string, endpointId: string, now: number): Promise<boolean>;
  /** When a lane on an enabled endpoint is next due or its lease runs out; undefined when nothing waits. */
  nextDueAt(): Promise<number | undefined>;
}

// ── Webhook endpoints (the partner portal) ───────────────────────────────────────────────────────────────────

/** A partner's webhook endpoint, as configured in the portal. Whether it is disabled is the outbox's (`endpoint()`). */
export interface WebhookEndpointRecord {
  id: string;
  partnerId: string;
  url: string;
  description: string | null;
  /** Event types, or `*` for all. */
  enabledEvents: string[];
  /**
   * The signing secrets, newest first: the current one (no expiry) and, during a rotation, the previous one until
   * its `expiresAt`. Every delivery is signed with each secret not yet expired.
   */
  secrets: { secret: string; expiresAt: number | null }[];
  createdAt: number;
  updatedAt: number;
}

export interface WebhookEndpointRecords {
  /** Stores a new endpoint; false (and nothing stored) when its partner already has `maxPerPartner`. */
  create(endpoint: WebhookEndpointRecord, maxPerPartner: number): Promise<boolean>;
  /** The partner's endpoints, oldest first. */
  list(partnerId: string): Promise<WebhookEndpointRecord[]>;
  get(partnerId: string, endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  /** By id alone, for delivery, which knows the endpoint but not its partner. */
  find(endpointId: string): Promise<WebhookEndpointRecord | undefined>;
  /** Replaces the endpoint's settings (not its id, partner or creation time); undefined when there is no such endpoint. */
  update(endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord | undefined>;
  /** False when the partner has no such endpoint. Also forgets what waits for it (`outbox.forgetEndpoint`). */
  delete(partnerId: string, endpointId: string): Promise<boolean>;
}

// ── Request journal ──────────────────────────────────────────────────────────────────────────────────────────

/** One request as journaled. */
export interface RequestRecord {
  atMs: number;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  /** The partner's id, for filtering and resetting; absent for requests without a valid key. */
  partnerId?: string;
  /** The key as shown: masked. */
  partner: string | null;
  replayed: boolean;
  errorCode: string | null;
  contractViolations?: string[];
}

export interface JournalQuery {
  /** Entries to return at most. */
  limit: number;
  /** Only entries older than this position (the `next` of the previous page). */
  before?: number;
  operationId?: string;
  status?: number;
  partnerId?: string;
}

export interface JournalPage {
  /** Oldest first, each with its position. */
  entries: (RequestRecord & { id: number })[];
  /** Where the next (older) page starts; absent when this page reached the oldest entry. */
  next?: number;
}

export interface RequestJournalRecords {
  append(records: readonly RequestRecord[]): Promise<void>;
  /**
   * The newest entries before `before` that match, at most `limit`, examining at most `limit × 10` entries, so that
   * a read never costs more than a page however large the journal is or how rare the matches.
   */
  page(query: JournalQuery): Promise<JournalPage>;
}
