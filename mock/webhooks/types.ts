import type { EventDestinations } from '../formation/webhook-events.ts';
import type { AttemptRecord, DeliveryRecord, Store } from '../store/store.ts';
import type { WebhookEvent } from './events.ts';

/** The subset of a pino logger the dispatcher uses, so a pino instance (or a child of one) fits as is. */
export interface DispatcherLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface WebhookDispatcherOptions {
  /** Where events wait for delivery, and where attempts are recorded. */
  store: Store;
  /** The default endpoint: where the events of a partner with no endpoint of its own go (none: they are only kept). */
  endpointUrl?: string;
  /** The Standard Webhooks signing secret of the default endpoint, `whsec_` + base64. */
  secret: string;
  /** Delays before attempts 2..n; after attempt n fails the endpoint is disabled. */
  retryDelaysMs: readonly number[];
  /** How long a receiver has to answer one attempt. */
  attemptTimeoutMs: number;
  logger: DispatcherLogger;
  /** The clock of signatures and journal lines. */
  now?: () => Date;
  fetch?: typeof fetch;
  /** Attempts in flight at once from this process, across all lanes (default 8). */
  maxConcurrency?: number;
  /** How often to look for work other processes stored, on a shared store (default 250 ms). */
  pollMs?: number;
}

export type { AttemptOutcome, AttemptRecord as JournalEntry, DeliveryRecord, DeliveryState } from '../store/store.ts';

export interface WebhookDispatcher extends EventDestinations {
  /** Stores an event behind the earlier events of `orderingKey` (the company id) and delivers it. Never throws. */
  enqueue(event: WebhookEvent, orderingKey: string, partnerId?: string): void;
  /**
   * Re-enables a disabled endpoint (the default one when none is named): when it was disabled after failures, a
   * `webhook_endpoint.disabled` event goes to it ahead of everything; then the held events resume in order. False
   * (and nothing done) when the endpoint was not disabled or does not exist.
   */
  reenable(endpointId?: string): Promise<boolean>;
  isDisabled(endpointId?: string): Promise<boolean>;
  /** The newest `limit` attempts, oldest first; only a partner's when given. */
  journal(limit?: number, partnerId?: string): Promise<AttemptRecord[]>;
  /** Recently delivered events and at most `limit` (1000) undelivered ones, in the order stored; only a partner's when given. */
  deliveries(limit?: number, partnerId?: string): Promise<DeliveryRecord[]>;
  /**
   * Resolves once nothing can progress on its own: no attempt in flight from this process and nothing due or
   * scheduled on an enabled endpoint. Events held by a disabled endpoint do not keep it waiting.
   */
  idle(): Promise<void>;
  /** Stops claiming, aborts attempts in flight (their lanes are given back as they were). */
  close(): Promise<void>;
}
