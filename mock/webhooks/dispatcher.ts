/**
 * Delivers the events of the store's outbox to the partners' webhook endpoints, at least once and in order per
 * company and endpoint: it claims lanes whose head is due (one endpoint × one ordering key, held by one process at a
 * time under a lease), POSTs the head signed per Standard Webhooks with the endpoint's secrets, and settles the
 * outcome in the store: delivered, retried on the schedule, or, after the last retry, the endpoint disabled.
 * Everything it knows is in the store, so a restart or another replica resumes where it stopped, with the same
 * `webhook-id` and the same bytes.
 *
 * Where an event goes: to every endpoint of its partner subscribed to its type, except those the partner switched
 * off; a partner with no endpoint at all gets the mock's default endpoint (`--webhook-url`), if there is one.
 */
import type { EventDestinations } from './outbox/outbox-event.ts';
import { reportRunFailures } from '../scheduling/run-failures.ts';
import { createWorkScheduler } from '../scheduling/work-scheduler.ts';
import type { Store } from '../store/store.ts';
import { sendAttempt, type AttemptResult } from './attempt.ts';
import { getEndpoint, listEndpoints } from './endpoints/endpoint-records.ts';
import { subscribesTo, switchedOff } from './endpoints/receiving.ts';
import { maskEndpointUrl } from './endpoint-url.ts';
import { buildEndpointDisabledEvent, type WebhookEventType } from './event-payloads.ts';
import { endpointLaneKey, relayLanePrefix } from './outbox/outbox-tables.ts';
import type { WebhookOutbox } from './outbox/outbox.ts';
import type { AttemptRecord, DeliveryOutcome, DeliveryRecord, LaneClaim, OutboxEvent } from './outbox/outbox-types.ts';
import { assertSigningSecret, signedHeaders } from './signing.ts';

/** The one endpoint of `--webhook-url`, as the store names it. */
export const defaultEndpointId = 'default';

/** A lane is held this much longer than an attempt may take, so that only a dead holder loses it. */
const leaseMarginMs = 5_000;

/** The subset of a pino logger the dispatcher uses, so a pino instance (or a child of one) fits as is. */
export interface DispatcherLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface WebhookDispatcherOptions {
  store: Store;
  /** Where events wait for delivery, and where attempts are recorded. */
  outbox: WebhookOutbox;
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
  /** Attempts in flight at once from this process, across all endpoints (default 64): a bound on the process. */
  maxConcurrency?: number;
  /**
   * Attempts in flight at once to one endpoint (default 4): an endpoint that hangs holds its own slots only, so
   * another's deliveries never wait behind its timeouts.
   */
  maxPerEndpoint?: number;
  /**
   * Attempts in flight at once for one partner, across its endpoints (default 16): a partner whose many endpoints
   * hang holds its share of the process's slots, never all of them.
   */
  maxPerPartner?: number;
  /** Look for work other processes stored this often (a store several processes share); undefined: only when woken. */
  pollMs?: number;
}

export interface WebhookDispatcher extends EventDestinations {
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

interface Target {
  url: string;
  secrets: string[];
  partnerId: string;
  /**
   * Set when the endpoint relays a sandbox's events signed with the sandbox's own secret (`relay.signWith:
   * upstream`): what signs those events, and those only. The mock's own events are never signed as the sandbox.
   */
  relaySecret?: string;
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  validateOptions(options);
  const { outbox, endpointUrl, logger, attemptTimeoutMs } = options;
  const now = options.now ?? (() => new Date());
  const maxConcurrency = options.maxConcurrency ?? 64;
  assertSigningSecret(options.secret);
  const flying = new Set<Promise<void>>();
  const slots = { perEndpoint: options.maxPerEndpoint ?? 4, inFlight: new Map<string, number>(), perPartner: options.maxPerPartner ?? 16, inFlightByPartner: new Map<string, number>() };
  const closing = new AbortController();
  let closed = false;

  if (endpointUrl !== undefined && !URL.canParse(endpointUrl)) {
    // Not fatal: every attempt will fail and be journaled, which is what a partner misconfiguring it would see.
    logger.warn({ endpointUrl: maskEndpointUrl(endpointUrl) }, 'webhook endpoint URL does not parse; deliveries will fail');
  }

  const targetOf = targets(options);

  const scheduler = createWorkScheduler({
    pollMs: options.pollMs,
    ...reportRunFailures(logger, 'webhook delivery (reading the outbox)'),
    async work() {
      if (closed) return undefined;
      const room = maxConcurrency - flying.size;
      // Full: a settled attempt wakes the scheduler again.
      if (room <= 0) return undefined;
      const claims = await outbox.claim(Date.now(), attemptTimeoutMs + leaseMarginMs, room, slots);
      for (const claim of claims) start(claim);
      if (claims.length === room) return undefined;
      const next = await outbox.nextDueAt(slots);
      // Never a time already past when nothing was claimable: that would make the scheduler spin.
      return next === undefined ? undefined : Math.max(next, Date.now() + 10);
    },
  });
  scheduler.wake();

  const attempt = createAttempts({ ...options, targetOf, closing: closing.signal, now });
  const start = (claim: LaneClaim) => {
    const { endpointId, partnerId } = claim;
    count(slots.inFlight, endpointId, 1);
    count(slots.inFlightByPartner, partnerId, 1);
    const running = attempt(claim)
      .catch((error: unknown) => logger.error({ err: error, eventId: claim.eventId }, 'webhook dispatcher failed to record an attempt'))
      .finally(() => {
        flying.delete(running);
        count(slots.inFlight, endpointId, -1);
        count(slots.inFlightByPartner, partnerId, -1);
        scheduler.wake();
      });
    flying.add(running);
  };

  return {
    endpointsFor: (partnerId, type) => subscribedEndpoints(options, partnerId, type),
    notify: () => scheduler.wake(),

    async reenable(endpointId = defaultEndpointId) {
      const target = await targetOf(endpointId);
      if (!target) return false;
      const notice = (disabled: { at: number; reason: string; failedEventId: string | null }): OutboxEvent | undefined =>
        // The notice tells of deliveries that stopped; an endpoint its partner switched off stopped nothing.
        disabled.reason === 'failures'
          ? {
              partnerId: target.partnerId,
              event: buildEndpointDisabledEvent({ endpointUrl: target.url, disabledAt: new Date(disabled.at), failedEventId: disabled.failedEventId ?? '' }, now()),
              orderingKey: endpointLaneKey,
              endpointIds: [endpointId],
            }
          : undefined;
      const reenabled = await outbox.reenable(endpointId, notice, Date.now(), target.partnerId || undefined);
      if (reenabled) {
        logger.info({ endpointId, endpointUrl: maskEndpointUrl(target.url) }, 'webhook endpoint re-enabled');
        scheduler.wake();
      }
      return reenabled;
    },

    isDisabled: async (endpointId = defaultEndpointId) => (await outbox.endpoint(endpointId)).disabled !== undefined,
    journal: (limit = 10_000, partnerId) => outbox.attempts(limit, partnerId),
    deliveries: (limit = 1000, partnerId) => outbox.deliveries(Date.now(), limit, partnerId),

    async idle() {
      for (;;) {
        if (flying.size === 0 && (closed || (await outbox.nextDueAt()) === undefined)) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },

    async close() {
      if (!closed) {
        closed = true;
        closing.abort();
      }
      await scheduler.close();
      await Promise.allSettled([...flying]);
    },
  };
}

/** Where a claimed delivery goes and what signs it: the default endpoint, or a partner's from the store. */
function targets(options: WebhookDispatcherOptions): (endpointId: string) => Promise<Target | undefined> {
  const { store, endpointUrl } = options;
  return async (endpointId) => {
    if (endpointId === defaultEndpointId) return endpointUrl === undefined ? undefined : { url: endpointUrl, secrets: [options.secret], partnerId: '' };
    const endpoint = await store.read((tx) => getEndpoint(tx, undefined, endpointId));
    if (!endpoint) return undefined;
    const time = Date.now();
    const secrets = endpoint.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > time).map((secret) => secret.secret);
    return { url: endpoint.url, secrets, partnerId: endpoint.partnerId, ...(endpoint.relay?.signWith === 'upstream' && endpoint.relay.secret !== undefined ? { relaySecret: endpoint.relay.secret } : {}) };
  };
}

/** The endpoints an event of `type` goes to: the partner's subscribed ones, or the default when it has none. */
async function subscribedEndpoints(options: WebhookDispatcherOptions, partnerId: string, type: WebhookEventType): Promise<string[]> {
  const endpoints = await options.store.read((tx) => listEndpoints(tx, partnerId));
  if (endpoints.length === 0) return options.endpointUrl === undefined ? [] : [defaultEndpointId];
  const subscribed = endpoints.filter((endpoint) => subscribesTo(endpoint, type));
  const states = await Promise.all(subscribed.map((endpoint) => options.outbox.endpoint(endpoint.id)));
  return subscribed.filter((_, index) => !switchedOff(states[index])).map((endpoint) => endpoint.id);
}

/** One attempt of a claimed delivery, settled in the outbox: delivered, retried on the schedule, or the endpoint disabled. */
function createAttempts(options: WebhookDispatcherOptions & { targetOf: (endpointId: string) => Promise<Target | undefined>; closing: AbortSignal; now: () => Date }) {
  const { outbox, logger, retryDelaysMs, attemptTimeoutMs, targetOf, closing } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch;

  const settle = async (claim: LaneClaim, target: Target, at: Date, result: AttemptResult) => {
    const context = { eventId: claim.eventId, type: claim.type, orderingKey: claim.laneKey, endpointId: claim.endpointId, attempt: claim.attempts + 1 };
    const delay = retryDelaysMs[claim.roundAttempts];
    const outcome: DeliveryOutcome = result.ok ? { kind: 'delivered' } : delay === undefined ? { kind: 'disable' } : { kind: 'retry', at: Date.now() + delay };
    const record: AttemptRecord = {
      ...context,
      at: at.toISOString(),
      ...(result.status === undefined ? {} : { status: result.status }),
      ...(result.ok ? {} : { error: result.error }),
      durationMs: result.durationMs,
      outcome: outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'retry' ? 'failed' : 'disabled',
    };
    if (!(await outbox.settle(claim, outcome, record, Date.now()))) {
      logger.warn(context, 'webhook attempt not recorded: the lane was held too long and another process took it over');
      return;
    }
    const failure = { ...context, status: result.status, error: result.ok ? undefined : result.error, durationMs: result.durationMs };
    if (outcome.kind === 'delivered') logger.debug({ ...context, status: result.status, durationMs: result.durationMs }, 'webhook delivered');
    else if (outcome.kind === 'retry') logger.warn({ ...failure, nextRetryInMs: delay }, 'webhook attempt failed; will retry');
    else logger.error({ ...failure, endpointUrl: maskEndpointUrl(target.url) }, 'webhook endpoint disabled after the last retry failed; events are held until it is re-enabled');
  };

  return async (claim: LaneClaim) => {
    const at = options.now();
    const target = await targetOf(claim.endpointId);
    if (!target) {
      // The endpoint went away (deleted, or no default any more): what waited for it goes with it.
      logger.warn({ endpointId: claim.endpointId, eventId: claim.eventId }, 'webhook not sent: its endpoint no longer exists');
      await outbox.forgetEndpoint(claim.endpointId);
      return;
    }
    const result = await sendAttempt({
      url: target.url,
      // Signed per attempt: the timestamp is this attempt's, the id and the body never change.
      headers: signedHeaders(target.relaySecret !== undefined && claim.laneKey.startsWith(relayLanePrefix) ? [target.relaySecret] : target.secrets, claim.eventId, claim.body, at),
      body: claim.body,
      timeoutMs: attemptTimeoutMs,
      signal: closing,
      fetch: fetchImpl,
    });
    // Cut short by the shutdown: nothing to hold against the receiver, so the lane is given back as it was.
    if (closing.aborted && !result.ok) return void (await outbox.release(claim, Date.now()));
    await settle(claim, target, at, result);
  };
}

/** Adds to a count of attempts in flight, forgetting it at 0. */
function count(counts: Map<string, number>, id: string, delta: number): void {
  const now = (counts.get(id) ?? 0) + delta;
  if (now <= 0) counts.delete(id);
  else counts.set(id, now);
}

function validateOptions(options: WebhookDispatcherOptions): void {
  const { retryDelaysMs, attemptTimeoutMs, maxConcurrency, maxPerEndpoint, maxPerPartner } = options;
  if (!retryDelaysMs.every((delay) => Number.isFinite(delay) && delay >= 0)) {
    throw new RangeError(`retryDelaysMs must be finite numbers >= 0, got ${JSON.stringify(retryDelaysMs)}`);
  }
  if (!Number.isFinite(attemptTimeoutMs) || attemptTimeoutMs <= 0) {
    throw new RangeError(`attemptTimeoutMs must be a positive number, got ${attemptTimeoutMs}`);
  }
  if (maxConcurrency !== undefined && (!Number.isInteger(maxConcurrency) || maxConcurrency < 1)) {
    throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }
  for (const [name, value] of [['maxPerEndpoint', maxPerEndpoint], ['maxPerPartner', maxPerPartner]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}
