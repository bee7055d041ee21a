import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, endpointOrderingKey } from '../../../mock/webhooks/dispatcher.ts';
import {
  captureLogger,
  companyId,
  contractValidator,
  harness,
  newSecret,
  roomyTimeoutMs,
  sleep,
  submittedEvent,
  testStore,
} from './support/fixtures.ts';
import { startReceiver, type Reply } from './support/receiver.ts';

const resources = harness();
afterEach(() => resources.closeAll());

const [a, b] = [companyId('a'), companyId('b')];

/**
 * A receiver that refuses every delivery of company a (so a's head exhausts the schedule [20, 20]) and accepts b's
 * until told otherwise; b's second event is held back so it is still queued when the endpoint gets disabled.
 */
async function disabledEndpoint() {
  const secret = newSecret();
  let accepting = false;
  const receiver = resources.track(
    await startReceiver(secret, (request): Reply => {
      if (accepting) return { status: 200 };
      return request.event?.data['serviceCompanyId'] === b ? { status: 200, delayMs: 5 } : { status: 500 };
    }),
  );
  const logger = captureLogger();
  const dispatcher = resources.track(
    createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [20, 20], attemptTimeoutMs: roomyTimeoutMs, logger }),
  );
  const events = { a: [submittedEvent(a, 1), submittedEvent(a, 2)], b: [submittedEvent(b, 1)] };
  for (const event of events.a) dispatcher.enqueue(event, a);
  dispatcher.enqueue(events.b[0]!, b);
  await dispatcher.idle();
  return { receiver, dispatcher, logger, events, accept: () => (accepting = true) };
}

describe('a disabled webhook endpoint', () => {
  it('is disabled once the last retry of an event fails, and then nothing more is sent', async () => {
    const { receiver, dispatcher, logger, events } = await disabledEndpoint();

    expect((await dispatcher.isDisabled())).toBe(true);
    const firstOfA = events.a[0]!.id;
    expect(receiver.requests.filter((request) => request.event?.id === firstOfA)).toHaveLength(3);
    expect((await dispatcher.journal()).filter((entry) => entry.eventId === firstOfA).map((entry) => entry.outcome)).toEqual([
      'failed',
      'failed',
      'disabled',
    ]);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);

    const laterForB = submittedEvent(b, 2);
    dispatcher.enqueue(laterForB, b);
    const sent = receiver.requests.length;
    await dispatcher.idle();
    await sleep(60);
    expect(receiver.requests).toHaveLength(sent);

    expect((await dispatcher.deliveries()).map(({ eventId, state }) => ({ eventId, state }))).toEqual([
      { eventId: events.a[0]!.id, state: 'held' },
      { eventId: events.a[1]!.id, state: 'held' },
      { eventId: events.b[0]!.id, state: 'delivered' },
      { eventId: laterForB.id, state: 'held' },
    ]);
  });

  it('on re-enabling, sends webhook_endpoint.disabled first, then the kept events in order', async () => {
    const { receiver, dispatcher, events, accept } = await disabledEndpoint();
    const laterForB = submittedEvent(b, 2);
    dispatcher.enqueue(laterForB, b);
    const before = receiver.requests.length;
    accept();

    expect((await dispatcher.reenable())).toBe(true);
    expect((await dispatcher.isDisabled())).toBe(false);
    await dispatcher.idle();

    const after = receiver.requests.slice(before);
    expect(after.every((request) => request.verified && request.answered === 200)).toBe(true);
    const [notice, ...kept] = after.map((request) => request.event!);
    expect(notice?.type).toBe('webhook_endpoint.disabled');
    const validate = await contractValidator('WebhookEndpointDisabledEvent');
    expect(validate(notice), JSON.stringify(validate.errors)).toBe(true);
    expect(notice?.data).toMatchObject({ endpointUrl: receiver.url, failedEventId: events.a[0]!.id });
    expect(Date.parse(String(notice?.data['disabledAt']))).toBeLessThanOrEqual(Date.parse(notice!.timestamp));

    expect(kept.filter((event) => event.data['serviceCompanyId'] === a).map((event) => event.id)).toEqual(
      events.a.map((event) => event.id),
    );
    expect(kept.filter((event) => event.data['serviceCompanyId'] === b).map((event) => event.id)).toEqual([laterForB.id]);
    expect((await dispatcher.deliveries()).every((delivery) => delivery.state === 'delivered')).toBe(true);
    expect((await dispatcher.deliveries())).toContainEqual(
      expect.objectContaining({ eventId: notice?.id, orderingKey: endpointOrderingKey, attempts: 1 }),
    );
  });

  it('gives the kept events a fresh retry schedule after re-enabling', async () => {
    const { receiver, dispatcher, events } = await disabledEndpoint();
    const firstOfA = events.a[0]!.id;
    let refusals = 0;
    receiver.policy = (request) => {
      if (request.event?.id !== firstOfA || refusals >= 2) return { status: 200 };
      refusals += 1;
      return { status: 500 };
    };

    (await dispatcher.reenable());
    await dispatcher.idle();

    expect((await dispatcher.isDisabled())).toBe(false);
    expect((await dispatcher.journal()).filter((entry) => entry.eventId === firstOfA).map((entry) => entry.attempt)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    expect(receiver.accepted().filter((event) => event.data['serviceCompanyId'] === a)).toHaveLength(2);
  });

  it('disables again when the notice itself cannot be delivered, keeping it for the next re-enable', async () => {
    const { receiver, dispatcher } = await disabledEndpoint();

    (await dispatcher.reenable());
    await dispatcher.idle();
    expect((await dispatcher.isDisabled())).toBe(true);
    const firstNotice = receiver.requests.at(-1)?.event;
    expect(firstNotice?.type).toBe('webhook_endpoint.disabled');
    expect((await dispatcher.deliveries()).find((delivery) => delivery.eventId === firstNotice?.id)).toMatchObject({
      state: 'held',
      attempts: 3,
    });

    receiver.policy = () => ({ status: 200 });
    const before = receiver.requests.length;
    (await dispatcher.reenable());
    await dispatcher.idle();

    const [second, first] = receiver.requests.slice(before).map((request) => request.event);
    expect(second?.type).toBe('webhook_endpoint.disabled');
    expect(second?.data['failedEventId']).toBe(firstNotice?.id);
    expect(first?.id).toBe(firstNotice?.id);
  });

  it('does nothing on reenable() when the endpoint is not disabled', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    );

    expect((await dispatcher.reenable())).toBe(false);
    dispatcher.enqueue(submittedEvent(a), a);
    await dispatcher.idle();
    expect((await dispatcher.reenable())).toBe(false);
    expect(receiver.requests.map((request) => request.event?.type)).toEqual(['company.formation.submitted']);
  });
});
