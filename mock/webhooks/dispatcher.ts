/**
 * Delivers the events of the store's outbox to the webhook endpoint, at least once and in order per company: it
 * claims lanes whose head is due (one endpoint × one ordering key, held by one process at a time under a lease),
 * POSTs the head signed per Standard Webhooks, and settles the outcome in the store: delivered, retried on the
 * schedule, or, after the last retry, the endpoint disabled. Everything it knows is in the store, so a restart or
 * another replica resumes where it stopped, with the same `webhook-id` and the same bytes.
 */
import type { Store, LaneClaim, DeliveryOutcome, AttemptRecord } from '../store/store.ts';
import { sendAttempt, type AttemptResult } from './attempt.ts';
import { buildEndpointDisabledEvent, type WebhookEvent } from './events.ts';
import { createSigner } from './signing.ts';
import { createWorkScheduler } from '../scheduling/work-scheduler.ts';
import type { WebhookDispatcher, WebhookDispatcherOptions } from './types.ts';

/** The ordering key of `webhook_endpoint.disabled`, which belongs to the endpoint, not to a company. */
export const endpointOrderingKey = 'webhook_endpoint';

/** The one endpoint of `--webhook-url`, as the store names it. */
export const defaultEndpointId = 'default';

/** A lane is held this much longer than an attempt may take, so that only a dead holder loses it. */
const leaseMarginMs = 5_000;

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  validateOptions(options);
  const { store, endpointUrl, logger, attemptTimeoutMs } = options;
  const retryDelaysMs = [...options.retryDelaysMs];
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxConcurrency = options.maxConcurrency ?? 8;
  const leaseMs = attemptTimeoutMs + leaseMarginMs;
  const sign = createSigner(options.secret);
  const endpointIds: readonly string[] = endpointUrl === undefined ? [] : [defaultEndpointId];
  const flying = new Set<Promise<void>>();
  const closing = new AbortController();
  let appended: Promise<void> = Promise.resolve();
  let closed = false;

  if (endpointUrl !== undefined && !URL.canParse(endpointUrl)) {
    // Not fatal: every attempt will fail and be journaled, which is what a partner misconfiguring it would see.
    logger.warn({ endpointUrl }, 'webhook endpoint URL does not parse; deliveries will fail');
  }

  const scheduler = createWorkScheduler({
    pollMs: store.shared ? (options.pollMs ?? 250) : undefined,
    onError: (error) => logger.error({ err: error }, 'webhook delivery failed to read the outbox; retrying'),
    async work() {
      if (closed || endpointUrl === undefined) return undefined;
      const room = maxConcurrency - flying.size;
      // Full: a settled attempt wakes the scheduler again.
      if (room <= 0) return undefined;
      const claims = await store.outbox.claim(Date.now(), leaseMs, room);
      for (const claim of claims) start(claim, endpointUrl);
      if (claims.length === room) return undefined;
      const next = await store.outbox.nextDueAt();
      // Never a time already past when nothing was claimable: that would make the scheduler spin.
      return next === undefined ? undefined : Math.max(next, Date.now() + 10);
    },
  });
  scheduler.wake();

  const start = (claim: LaneClaim, url: string) => {
    const at = now();
    const attempt = (async () => {
      const result = await sendAttempt({
        url,
        // Signed per attempt: the timestamp is this attempt's, the id and the body never change.
        headers: sign(claim.eventId, claim.body, at),
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
      await settle(claim, at, result);
    })()
      .catch((error: unknown) => logger.error({ err: error, eventId: claim.eventId }, 'webhook dispatcher failed to record an attempt'))
      .finally(() => {
        flying.delete(attempt);
        scheduler.wake();
      });
    flying.add(attempt);
  };

  const settle = async (claim: LaneClaim, at: Date, result: AttemptResult) => {
    const context = { eventId: claim.eventId, type: claim.type, orderingKey: claim.laneKey, attempt: claim.attempts + 1 };
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
    else logger.error({ ...failure, endpointUrl }, 'webhook endpoint disabled after the last retry failed; events are held until it is re-enabled');
  };

  return {
    endpointsFor: () => endpointIds,

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
          await store.outbox.append([{ partnerId, event, orderingKey: String(orderingKey), endpointIds }], Date.now());
          scheduler.wake();
        })
        // Typically an event JSON cannot encode (a BigInt, a cycle); the caller must go on regardless.
        .catch((error: unknown) => logger.error({ err: error, orderingKey }, 'webhook event not queued'));
    },

    async reenable() {
      if (endpointUrl === undefined) return false;
      const reenabled = await store.outbox.reenable(
        defaultEndpointId,
        (disabled): { partnerId: string; event: WebhookEvent; orderingKey: string; endpointIds: readonly string[] } => ({
          partnerId: '',
          event: buildEndpointDisabledEvent({ endpointUrl, disabledAt: new Date(disabled.at), failedEventId: disabled.failedEventId }, now()),
          orderingKey: endpointOrderingKey,
          endpointIds,
        }),
        Date.now(),
      );
      if (reenabled) {
        logger.info({ endpointUrl }, 'webhook endpoint re-enabled');
        scheduler.wake();
      }
      return reenabled;
    },

    async isDisabled() {
      return (await store.outbox.endpoint(defaultEndpointId)).disabled !== undefined;
    },

    journal: (limit = 10_000) => store.outbox.attempts(limit),

    deliveries: (limit = 1000) => store.outbox.deliveries(Date.now(), limit),

    async idle() {
      for (;;) {
        await appended;
        if (flying.size === 0 && (closed || endpointUrl === undefined || (await store.outbox.nextDueAt()) === undefined)) return;
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
