import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../../mock/webhooks/dispatcher.ts';
import type { WebhookEvent } from '../../../mock/webhooks/events.ts';
import { captureLogger, companyId, harness, newSecret, roomyTimeoutMs, submittedEvent, until, testStore } from './support/fixtures.ts';
import { startReceiver } from './support/receiver.ts';

const resources = harness();
afterEach(() => resources.closeAll());

const company = companyId('a');

async function acceptingDispatcher(storeOptions: { attemptJournalCapacity?: number; deliveredCapacity?: number } = {}) {
  const secret = newSecret();
  const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
  const logger = captureLogger();
  const dispatcher = resources.track(
    createWebhookDispatcher({ store: testStore(storeOptions), endpointUrl: receiver.url, secret, retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger }),
  );
  return { receiver, dispatcher, logger };
}

describe('the webhook journal', () => {
  it('records every attempt with its outcome', async () => {
    // Whole seconds, and now, so the receiver's 5-minute tolerance accepts the signature.
    const fixed = new Date(Math.floor(Date.now() / 1000) * 1000);
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, (request) => ({ status: request.index === 0 ? 500 : 200 })));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(),
        endpointUrl: receiver.url,
        secret,
        retryDelaysMs: [1],
        attemptTimeoutMs: roomyTimeoutMs,
        logger: captureLogger(),
        now: () => fixed,
      }),
    );
    const event = submittedEvent(company);

    dispatcher.enqueue(event, company);
    await dispatcher.idle();

    const common = { eventId: event.id, endpointId: 'default', type: 'company.formation.submitted', orderingKey: company, at: fixed.toISOString() };
    expect((await dispatcher.journal())).toEqual([
      { ...common, attempt: 1, status: 500, error: 'HTTP 500', durationMs: expect.any(Number), outcome: 'failed' },
      { ...common, attempt: 2, status: 200, durationMs: expect.any(Number), outcome: 'delivered' },
    ]);
  });

  it('keeps only the newest entries and the newest delivered events', async () => {
    const { dispatcher } = await acceptingDispatcher({ attemptJournalCapacity: 5, deliveredCapacity: 3 });
    const events = Array.from({ length: 12 }, (_, n) => submittedEvent(company, n));

    for (const event of events) dispatcher.enqueue(event, company);
    await dispatcher.idle();

    expect((await dispatcher.journal()).map((entry) => entry.eventId)).toEqual(events.slice(-5).map((event) => event.id));
    expect((await dispatcher.deliveries()).map((delivery) => delivery.eventId)).toEqual(events.slice(-3).map((event) => event.id));
  });

  it('journals events as no-endpoint and sends nothing when no endpoint is configured', async () => {
    const logger = captureLogger();
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), secret: newSecret(), retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger }),
    );
    const event = submittedEvent(company);

    dispatcher.enqueue(event, company);
    await dispatcher.idle();

    expect((await dispatcher.journal())).toEqual([expect.objectContaining({ eventId: event.id, attempt: 0, outcome: 'no-endpoint' })]);
    expect((await dispatcher.deliveries())).toEqual([]);
    expect((await dispatcher.isDisabled())).toBe(false);
    expect((await dispatcher.reenable())).toBe(false);
  });

  it('reports queued events as pending and the one on the wire as in-flight', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => 'hang'));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    );
    const events = [submittedEvent(company, 1), submittedEvent(company, 2)];

    for (const event of events) dispatcher.enqueue(event, company);
    await until(() => receiver.requests.length === 1);

    // Attempts count once they are settled: the one on the wire is not counted yet.
    expect((await dispatcher.deliveries())).toEqual([
      { eventId: events[0]!.id, type: 'company.formation.submitted', orderingKey: company, endpointId: 'default', state: 'in-flight', attempts: 0 },
      { eventId: events[1]!.id, type: 'company.formation.submitted', orderingKey: company, endpointId: 'default', state: 'pending', attempts: 0 },
    ]);
  });
});

describe('webhook dispatcher robustness', () => {
  it('never throws from enqueue, whatever it is given', async () => {
    const { dispatcher, logger } = await acceptingDispatcher();
    const cyclic = submittedEvent(company) as WebhookEvent & { self?: unknown };
    cyclic.self = cyclic;
    const withBigInt = { ...submittedEvent(company), extra: 1n } as WebhookEvent;

    for (const bad of [cyclic, withBigInt, null, undefined, {}] as WebhookEvent[]) {
      expect(() => dispatcher.enqueue(bad, company)).not.toThrow();
    }
    await dispatcher.idle();

    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(5);
    expect((await dispatcher.deliveries())).toEqual([]);
  });

  it('refuses new events beyond the memory store\'s maxQueuedEvents rather than growing without bound', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => 'hang'));
    const logger = captureLogger();
    const dispatcher = resources.track(
      createWebhookDispatcher({
        store: testStore({ memoryMaxQueuedEvents: 3 }, logger),
        endpointUrl: receiver.url,
        secret,
        retryDelaysMs: [],
        attemptTimeoutMs: roomyTimeoutMs,
        logger,
      }),
    );

    for (let n = 0; n < 5; n += 1) dispatcher.enqueue(submittedEvent(company, n), company);
    await until(() => receiver.requests.length === 1);

    expect((await dispatcher.deliveries())).toHaveLength(3);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(2);
  });

  it('aborts attempts in flight on close and keeps their events, counting no attempt against the receiver', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => 'hang'));
    const dispatcher = createWebhookDispatcher({ store: testStore(),
      endpointUrl: receiver.url,
      secret,
      retryDelaysMs: [1],
      attemptTimeoutMs: roomyTimeoutMs,
      logger: captureLogger(),
    });
    const event = submittedEvent(company);
    dispatcher.enqueue(event, company);
    await until(() => receiver.requests.length === 1);

    await dispatcher.close();
    await dispatcher.idle();
    dispatcher.enqueue(submittedEvent(company), company);
    await dispatcher.idle();

    expect(await dispatcher.journal()).toEqual([]);
    expect((await dispatcher.deliveries()).map((delivery) => [delivery.state, delivery.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('accepts a pino logger as is', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger }),
    );

    dispatcher.enqueue(submittedEvent(company), company);
    await dispatcher.idle();

    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 20, msg: 'webhook delivered', status: 200, attempt: 1 }),
    ]);
  });
});
