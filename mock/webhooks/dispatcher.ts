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
import type { AttemptRecord, DeliveryOutcome, LaneClaim, OutboxEvent, Store } from '../store/store.ts';
import { createWorkScheduler } from '../scheduling/work-scheduler.ts';
import { sendAttempt, type AttemptResult } from './attempt.ts';
import { maskEndpointUrl } from './endpoint-url.ts';
import { buildEndpointDisabledEvent, type WebhookEventType } from './events.ts';
import { assertSigningSecret, signedHeaders } from './signing.ts';
import type { WebhookDispatcher, WebhookDispatcherOptions } from './types.ts';

/** The ordering key of `webhook_endpoint.disabled`, which belongs to the endpoint, not to a company. */
export const endpointOrderingKey = 'webhook_endpoint';

/** The one endpoint of `--webhook-url`, as the store names it. */
export const defaultEndpointId = 'default';

/** A lane is held this much longer than an attempt may take, so that only a dead holder loses it. */
const leaseMarginMs = 5_000;

interface Target {
  url: string;
  secrets: string[];
  partnerId: string;
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  validateOptions(options);
  const { store, endpointUrl, logger, attemptTimeoutMs } = options;
  const retryDelaysMs = [...options.retryDelaysMs];
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxConcurrency = options.maxConcurrency ?? 8;
  const leaseMs = attemptTimeoutMs + leaseMarginMs;
  assertSigningSecret(options.secret);
  const flying = new Set<Promise<void>>();
  const closing = new AbortController();
  let appended: Promise<void> = Promise.resolve();
  let closed = false;

  if (endpointUrl !== undefined && !URL.canParse(endpointUrl)) {
    // Not fatal: every attempt will fail and be journaled, which is what a partner misconfiguring it would see.
    logger.warn({ endpointUrl: maskEndpointUrl(endpointUrl) }, 'webhook endpoint URL does not parse; deliveries will fail');
  }

  /** Where a claimed delivery goes and what signs it: the default endpoint, or a partner's from the store. */
  const targetOf = async (endpointId: string): Promise<Target | undefined> => {
    if (endpointId === defaultEndpointId) return endpointUrl === undefined ? undefined : { url: endpointUrl, secrets: [options.secret], partnerId: '' };
    const endpoint = await store.webhookEndpoints.find(endpointId);
    if (!endpoint) return undefined;
    const time = Date.now();
    return { url: endpoint.url, secrets: endpoint.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > time).map((secret) => secret.secret), partnerId: endpoint.partnerId };
  };

  const scheduler = createWorkScheduler({
    pollMs: store.shared ? (options.pollMs ?? 250) : undefined,
    onError: (error) => logger.error({ err: error }, 'webhook delivery failed to read the outbox; retrying'),
    async work() {
      if (closed) return undefined;
      const room = maxConcurrency - flying.size;
      // Full: a settled attempt wakes the scheduler again.
      if (room <= 0) return undefined;
      const claims = await store.outbox.claim(Date.now(), leaseMs, room);
      for (const claim of claims) start(claim);
      if (claims.length === room) return undefined;
      const next = await store.outbox.nextDueAt();
      // Never a time already past when nothing was claimable: that would make the scheduler spin.
      return next === undefined ? undefined : Math.max(next, Date.now() + 10);
    },
  });
  scheduler.wake();

  const start = (claim: LaneClaim) => {
    const at = now();
    const attempt = (async () => {
      const target = await targetOf(claim.endpointId);
      if (!target) {
        // The endpoint went away (deleted, or no default any more): what waited for it goes with it.
        logger.warn({ endpointId: claim.endpointId, eventId: claim.eventId }, 'webhook not sent: its endpoint no longer exists');
        await store.outbox.forgetEndpoint(claim.endpointId);
        return;
      }
      const result = await sendAttempt({
        url: target.url,
        // Signed per attempt: the timestamp is this attempt's, the id and the body never change.
        headers: signedHeaders(target.secrets, claim.eventId, claim.body, at),
        body: claim.body,
        timeoutMs: attemptTimeoutMs,
        signal: closing.signal,
        fetch: fetchImpl,
      });
      if (closing.signal.aborted && !result.ok) {
        // Cut short by the shutdown: nothing to hold against the receiver, so the lane is given back as it was.
        await store.outbox.release(claim, Date.now());
        return;
      }
      await settle(claim, target, at, result);
    })()
      .catch((error: unknown) => logger.error({ err: error, eventId: claim.eventId }, 'webhook dispatcher failed to record an attempt'))
      .finally(() => {
        flying.delete(attempt);
        scheduler.wake();
      });
    flying.add(attempt);
  };

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
    if (!(await store.outbox.settle(claim, outcome, record, Date.now()))) {
      logger.warn(context, 'webhook attempt not recorded: the lane was held too long and another process took it over');
      return;
    }
    const failure = { ...context, status: result.status, error: result.ok ? undefined : result.error, durationMs: result.durationMs };
    if (outcome.kind === 'delivered') logger.debug({ ...context, status: result.status, durationMs: result.durationMs }, 'webhook delivered');
    else if (outcome.kind === 'retry') logger.warn({ ...failure, nextRetryInMs: delay }, 'webhook attempt failed; will retry');
    else logger.error({ ...failure, endpointUrl: maskEndpointUrl(target.url) }, 'webhook endpoint disabled after the last retry failed; events are held until it is re-enabled');
  };

  const endpointsFor = async (partnerId: string, type: WebhookEventType): Promise<string[]> => {
    const endpoints = await store.webhookEndpoints.list(partnerId);
    if (endpoints.length === 0) return endpointUrl === undefined ? [] : [defaultEndpointId];
    const subscribed = endpoints.filter((endpoint) => endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type));
    const states = await Promise.all(subscribed.map((endpoint) => store.outbox.endpoint(endpoint.id)));
    // Switched off by its partner: it receives nothing until switched on. Disabled after failures: it holds them.
    return subscribed.filter((_, index) => states[index]?.disabled?.reason !== 'requested').map((endpoint) => endpoint.id);
  };

  return {
    endpointsFor,

    notify() {
      scheduler.wake();
    },

    enqueue(event, orderingKey, partnerId = '') {
      // Appended in call order, so that events enqueued one after another keep their order in the lane.
      appended = appended
        .then(async () => {
          if (typeof event?.id !== 'string' || typeof event.type !== 'string') {
            logger.error({ orderingKey }, 'webhook event without a string id and type; not queued');
            return;
          }
          const endpointIds = await endpointsFor(partnerId, event.type);
          await store.outbox.append([{ partnerId, event, orderingKey: String(orderingKey), endpointIds }], Date.now());
          scheduler.wake();
        })
        // Typically an event JSON cannot encode (a BigInt, a cycle); the caller must go on regardless.
        .catch((error: unknown) => logger.error({ err: error, orderingKey }, 'webhook event not queued'));
    },

    async reenable(endpointId = defaultEndpointId) {
      const target = await targetOf(endpointId);
      if (!target) return false;
      const reenabled = await store.outbox.reenable(
        endpointId,
        (disabled): OutboxEvent | undefined =>
          // The notice tells of deliveries that stopped; an endpoint its partner switched off stopped nothing.
          disabled.reason === 'failures'
            ? {
                partnerId: target.partnerId,
                event: buildEndpointDisabledEvent({ endpointUrl: target.url, disabledAt: new Date(disabled.at), failedEventId: disabled.failedEventId ?? '' }, now()),
                orderingKey: endpointOrderingKey,
                endpointIds: [endpointId],
              }
            : undefined,
        Date.now(),
      );
      if (reenabled) {
        logger.info({ endpointId, endpointUrl: maskEndpointUrl(target.url) }, 'webhook endpoint re-enabled');
        scheduler.wake();
      }
      return reenabled;
    },

    async isDisabled(endpointId = defaultEndpointId) {
      return (await store.outbox.endpoint(endpointId)).disabled !== undefined;
    },

    journal: (limit = 10_000, partnerId) => store.outbox.attempts(limit, partnerId),

    deliveries: (limit = 1000, partnerId) => store.outbox.deliveries(Date.now(), limit, partnerId),

    async idle() {
      for (;;) {
        await appended;
        if (flying.size === 0 && (closed || (await store.outbox.nextDueAt()) === undefined)) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },

    async close() {
      if (!closed) {
        closed = true;
        closing.abort();
      }
      await scheduler.close();
      await appended;
      await Promise.allSettled([...flying]);
    },
  };
}

function validateOptions(options: WebhookDispatcherOptions): void {
  const { retryDelaysMs, attemptTimeoutMs, maxConcurrency } = options;
  if (!retryDelaysMs.every((delay) => Number.isFinite(delay) && delay >= 0)) {
    throw new RangeError(`retryDelaysMs must be finite numbers >= 0, got ${JSON.stringify(retryDelaysMs)}`);
  }
  if (!Number.isFinite(attemptTimeoutMs) || attemptTimeoutMs <= 0) {
    throw new RangeError(`attemptTimeoutMs must be a positive number, got ${attemptTimeoutMs}`);
  }
  if (maxConcurrency !== undefined && (!Number.isInteger(maxConcurrency) || maxConcurrency < 1)) {
    throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }
}
