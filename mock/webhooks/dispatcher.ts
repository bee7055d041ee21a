import { sendAttempt, type AttemptResult } from './attempt.ts';
import { buildEndpointDisabledEvent, type WebhookEvent } from './events.ts';
import { createLanes, type Lane, type QueuedEvent } from './lanes.ts';
import { createRingBuffer } from './ring-buffer.ts';
import { createSigner } from './signing.ts';
import type {
  AttemptOutcome,
  DeliveryRecord,
  JournalEntry,
  WebhookDispatcher,
  WebhookDispatcherOptions,
} from './types.ts';

/** The ordering key journaled for `webhook_endpoint.disabled`, which belongs to the endpoint, not to a company. */
export const endpointOrderingKey = 'webhook_endpoint';

interface Disablement {
  at: Date;
  failedEventId: string;
}

type DeliveredRecord = DeliveryRecord & { seq: number };

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  validateOptions(options);
  const { endpointUrl, logger, attemptTimeoutMs } = options;
  const retryDelaysMs = [...options.retryDelaysMs];
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxConcurrency = options.maxConcurrency ?? 8;
  const maxQueuedEvents = options.maxQueuedEvents ?? 10_000;
  const sign = createSigner(options.secret);
  const journalEntries = createRingBuffer<JournalEntry>(options.journalCapacity ?? 10_000);
  const delivered = createRingBuffer<DeliveredRecord>(options.deliveredCapacity ?? 1_000);
  const lanes = createLanes(endpointOrderingKey);
  const retryTimers = new Map<Lane, NodeJS.Timeout>();
  const flying = new Set<QueuedEvent>();
  const running = new Set<Promise<void>>();
  const closing = new AbortController();
  let idleWaiters: (() => void)[] = [];
  let seq = 0;
  let closed = false;
  let disabled: Disablement | undefined;

  if (endpointUrl !== undefined && !URL.canParse(endpointUrl)) {
    // Not fatal: every attempt will fail and be journaled, which is what a partner misconfiguring it would see.
    logger.warn({ endpointUrl }, 'webhook endpoint URL does not parse; deliveries will fail');
  }

  const toQueued = (event: WebhookEvent, orderingKey: string): QueuedEvent => ({
    seq: (seq += 1),
    eventId: event.id,
    type: event.type,
    orderingKey,
    body: JSON.stringify(event),
    attempts: 0,
    roundAttempts: 0,
  });

  const record = (event: QueuedEvent, at: Date, outcome: AttemptOutcome, result?: AttemptResult) => {
    const entry: JournalEntry = {
      eventId: event.eventId,
      type: event.type,
      orderingKey: event.orderingKey,
      attempt: event.attempts,
      at: at.toISOString(),
      durationMs: result?.durationMs ?? 0,
      outcome,
    };
    if (result?.status !== undefined) entry.status = result.status;
    if (result && !result.ok) entry.error = result.error;
    journalEntries.push(entry);
    return entry;
  };

  const isQuiet = () =>
    flying.size === 0 && retryTimers.size === 0 && (closed || disabled !== undefined || !lanes.hasReady());

  const notifyIfIdle = () => {
    if (idleWaiters.length === 0 || !isQuiet()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const pump = () => {
    if (!closed && !disabled && endpointUrl !== undefined) {
      while (flying.size < maxConcurrency) {
        const lane = lanes.takeNext();
        if (!lane) break;
        start(lane, endpointUrl);
      }
    }
    notifyIfIdle();
  };

  const start = (lane: Lane, url: string) => {
    const event = lane.events[0];
    if (!event) return lanes.release(lane);
    lane.state = 'in-flight';
    flying.add(event);
    event.attempts += 1;
    event.roundAttempts += 1;
    const at = now();
    const attempt = async () => {
      let result: AttemptResult;
      try {
        result = await sendAttempt({
          url,
          // Signed per attempt: the timestamp is this attempt's, the id and the body never change.
          headers: sign(event.eventId, event.body, at),
          body: event.body,
          timeoutMs: attemptTimeoutMs,
          signal: closing.signal,
          fetch: fetchImpl,
        });
      } catch (error) {
        result = { ok: false, error: error instanceof Error ? error.message : String(error), durationMs: 0 };
      }
      flying.delete(event);
      try {
        settle(lane, event, at, result);
      } catch (error) {
        logger.error({ err: error, eventId: event.eventId }, 'webhook dispatcher failed to record an attempt');
      }
      pump();
    };
    const promise = attempt().finally(() => running.delete(promise));
    running.add(promise);
  };

  const settle = (lane: Lane, event: QueuedEvent, at: Date, result: AttemptResult) => {
    const context = { eventId: event.eventId, type: event.type, orderingKey: event.orderingKey, attempt: event.attempts };
    if (result.ok) {
      record(event, at, 'delivered', result);
      logger.debug({ ...context, status: result.status, durationMs: result.durationMs }, 'webhook delivered');
      delivered.push({ seq: event.seq, ...deliveryOf(event, 'delivered') });
      lanes.removeDelivered(lane, event);
      return;
    }
    const failure = { ...context, status: result.status, error: result.error, durationMs: result.durationMs };
    if (closed || disabled) {
      record(event, at, 'failed', result);
      logger.warn(failure, closed ? 'webhook attempt failed; dispatcher closed' : 'webhook attempt failed; endpoint disabled, event held');
      lanes.release(lane);
      return;
    }
    const delay = retryDelaysMs[event.roundAttempts - 1];
    if (delay === undefined) {
      record(event, at, 'disabled', result);
      lanes.release(lane);
      disable(event, failure);
      return;
    }
    record(event, at, 'failed', result);
    logger.warn({ ...failure, nextRetryInMs: delay }, 'webhook attempt failed; will retry');
    lane.state = 'waiting';
    retryTimers.set(
      lane,
      setTimeout(() => {
        retryTimers.delete(lane);
        lanes.release(lane);
        pump();
      }, delay),
    );
  };

  const clearRetryTimers = () => {
    for (const [lane, timer] of retryTimers) {
      clearTimeout(timer);
      lanes.release(lane);
    }
    retryTimers.clear();
  };

  const disable = (event: QueuedEvent, failure: object) => {
    disabled = { at: now(), failedEventId: event.eventId };
    // Events waiting for a retry are held too: after re-enabling they start a fresh schedule.
    clearRetryTimers();
    logger.error(
      { ...failure, endpointUrl, heldEvents: lanes.queuedCount() },
      'webhook endpoint disabled after the last retry failed; events are held until it is re-enabled',
    );
  };

  const deliveryOf = (event: QueuedEvent, state: DeliveryRecord['state']): DeliveryRecord => ({
    eventId: event.eventId,
    type: event.type,
    orderingKey: event.orderingKey,
    state,
    attempts: event.attempts,
  });

  return {
    enqueue(event, orderingKey) {
      try {
        if (typeof event?.id !== 'string' || typeof event.type !== 'string') {
          logger.error({ orderingKey }, 'webhook event without a string id and type; not queued');
          return;
        }
        if (endpointUrl === undefined) {
          const entry = record(toQueued(event, String(orderingKey)), now(), 'no-endpoint');
          logger.debug(entry, 'webhook not sent: no endpoint configured');
          return;
        }
        if (lanes.queuedCount() >= maxQueuedEvents) {
          logger.error(
            { eventId: event.id, type: event.type, orderingKey, maxQueuedEvents },
            'webhook event dropped: too many events waiting for delivery',
          );
          return;
        }
        lanes.append(toQueued(event, String(orderingKey)));
        pump();
      } catch (error) {
        // Typically an event JSON cannot encode (a BigInt, a cycle); the caller's request must still succeed.
        logger.error({ err: error, orderingKey }, 'webhook event not queued');
      }
    },

    reenable() {
      if (!disabled || endpointUrl === undefined) return false;
      const notice = buildEndpointDisabledEvent(
        { endpointUrl, disabledAt: disabled.at, failedEventId: disabled.failedEventId },
        now(),
      );
      disabled = undefined;
      for (const lane of lanes.all()) {
        for (const event of lane.events) event.roundAttempts = flying.has(event) ? 1 : 0;
      }
      lanes.prependPriority(toQueued(notice, endpointOrderingKey));
      lanes.requeueAll();
      logger.info({ endpointUrl, eventId: notice.id, heldEvents: lanes.queuedCount() - 1 }, 'webhook endpoint re-enabled');
      pump();
      return true;
    },

    isDisabled: () => disabled !== undefined,

    journal: () => journalEntries.toArray(),

    deliveries() {
      const queued = lanes.all().flatMap((lane) =>
        lane.events.map((event) => ({
          seq: event.seq,
          ...deliveryOf(event, flying.has(event) ? 'in-flight' : disabled ? 'held' : 'pending'),
        })),
      );
      return [...delivered.toArray(), ...queued]
        .sort((a, b) => a.seq - b.seq)
        .map(({ seq: _seq, ...delivery }) => delivery);
    },

    idle() {
      if (isQuiet()) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },

    async close() {
      if (!closed) {
        closed = true;
        clearRetryTimers();
        closing.abort();
      }
      await Promise.allSettled([...running]);
      notifyIfIdle();
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
