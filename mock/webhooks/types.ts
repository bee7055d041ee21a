import type { WebhookEvent } from './events.ts';

/** The subset of a pino logger the dispatcher uses, so a pino instance (or a child of one) fits as is. */
export interface DispatcherLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface WebhookDispatcherOptions {
  /** Where events are POSTed; without one, events are journaled as `no-endpoint` and not sent. */
  endpointUrl?: string;
  /** The Standard Webhooks signing secret, `whsec_` + base64. */
  secret: string;
  /** Delays before attempts 2..n; after attempt n fails the endpoint is disabled. */
  retryDelaysMs: readonly number[];
  /** How long a receiver has to answer one attempt. */
  attemptTimeoutMs: number;
  logger: DispatcherLogger;
  now?: () => Date;
  fetch?: typeof fetch;
  /** Attempts in flight at once across all ordering keys (default 8). */
  maxConcurrency?: number;
  /** Journal entries kept, newest last (default 10 000). */
  journalCapacity?: number;
  /** Delivered events kept in `deliveries()` (default 1 000); queued events are always listed. */
  deliveredCapacity?: number;
  /** Events kept waiting (pending or held) before new ones are refused with an error log (default 10 000). */
  maxQueuedEvents?: number;
}

export type AttemptOutcome = 'delivered' | 'failed' | 'disabled' | 'no-endpoint';

export interface JournalEntry {
  eventId: string;
  /** The event's `type`, as sent. */
  type: string;
  orderingKey: string;
  /** 1 for the first attempt of the event; 0 when nothing was sent (`no-endpoint`). */
  attempt: number;
  /** When the attempt started (ISO 8601). */
  at: string;
  status?: number;
  error?: string;
  durationMs: number;
  /** `disabled`: this attempt was the last one of the schedule and its failure disabled the endpoint. */
  outcome: AttemptOutcome;
}

/** `held`: waiting for `reenable()`, because the endpoint is disabled. */
export type DeliveryState = 'pending' | 'in-flight' | 'delivered' | 'held';

export interface DeliveryRecord {
  eventId: string;
  /** The event's `type`, as sent. */
  type: string;
  orderingKey: string;
  state: DeliveryState;
  /** Attempts made so far, across re-enables. */
  attempts: number;
}

export interface WebhookDispatcher {
  /** Queues an event behind the earlier events of `orderingKey` (the company id). Never throws. */
  enqueue(event: WebhookEvent, orderingKey: string): void;
  /**
   * Re-enables a disabled endpoint: queues a `webhook_endpoint.disabled` event ahead of everything, then resumes
   * the kept events in order. Returns false (and does nothing) when the endpoint was not disabled.
   */
  reenable(): boolean;
  isDisabled(): boolean;
  /** Attempts, oldest first, bounded by `journalCapacity`. */
  journal(): JournalEntry[];
  /** Recently delivered events and every queued one, in enqueue order. */
  deliveries(): DeliveryRecord[];
  /**
   * Resolves once nothing can progress on its own: no attempt in flight, no retry scheduled and nothing ready to
   * send. Events held by a disabled endpoint do not keep it waiting, since only `reenable()` moves them.
   */
  idle(): Promise<void>;
  /** Stops timers and aborts attempts in flight; queued events stay in memory but are no longer sent. */
  close(): Promise<void>;
}
