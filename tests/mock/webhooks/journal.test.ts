/**
 * What the dispatcher reports about deliveries of events made by formations (the journal of attempts, within its
 * capacity; the deliveries, pending, in flight or delivered) and how the pipeline holds up: a step stored with its
 * events or not at all, the memory store's cap on queued deliveries, a shutdown mid-attempt, a pino logger.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger, newSecret, openResources, until } from './support/fixtures.ts';
import { formationHarness, llcFormationEvents, type HarnessOptions, type StoreEvents } from './support/formation-harness.ts';
import { startReceiver, type Policy } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

/** A receiver answering as `policy` says, and a harness delivering to it. */
async function deliveringTo(policy: Policy, options: HarnessOptions = {}) {
  const secret = newSecret();
  const receiver = resources.track(await startReceiver(secret, policy));
  const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, ...options }));
  return { receiver, h };
}

describe('the webhook journal', () => {
  it('records every attempt with its outcome', async () => {
    // Whole seconds, and now, so the receiver's 5-minute tolerance accepts the signature.
    const fixed = new Date(Math.floor(Date.now() / 1000) * 1000);
    const { h } = await deliveringTo((request) => ({ status: request.index === 0 ? 500 : 200 }), { retryDelaysMs: [1], now: () => fixed });
    const company = await h.newCompany();

    await h.simulate(company, 'NEXT');
    await h.dispatcher.idle();

    const [event] = await h.eventsOf(company);
    const common = { eventId: event?.id, endpointId: 'default', type: 'company.formation.submitted', orderingKey: company.id, at: fixed.toISOString() };
    expect(await h.dispatcher.journal()).toEqual([
      { ...common, attempt: 1, status: 500, error: 'HTTP 500', durationMs: expect.any(Number), outcome: 'failed' },
      { ...common, attempt: 2, status: 200, durationMs: expect.any(Number), outcome: 'delivered' },
    ]);
  });

  it('keeps only the newest entries and the newest delivered events', async () => {
    // One lane (one company's whole formation), so the journal's order is the order the events were stored in.
    const { h } = await deliveringTo(() => ({ status: 200 }), { outbox: { attemptsKeptPerPartner: 5, deliveredCapacity: 3 } });
    const company = await h.newCompany();

    await h.simulate(company, 'COMPLETED');
    await h.dispatcher.idle();

    const ids = (await h.eventsOf(company)).map((event) => event.id);
    expect(ids).toHaveLength(llcFormationEvents.length);
    expect((await h.dispatcher.journal()).map((entry) => entry.eventId)).toEqual(ids.slice(-5));
    expect((await h.dispatcher.deliveries()).map((delivery) => delivery.eventId)).toEqual(ids.slice(-3));
  });

  it('journals events as no-endpoint and sends nothing when no endpoint is configured', async () => {
    const h = resources.track(formationHarness());
    const company = await h.newCompany();

    await h.simulate(company, 'NEXT');
    await h.dispatcher.idle();

    const [event] = await h.eventsOf(company);
    expect(await h.dispatcher.journal()).toEqual([expect.objectContaining({ eventId: event?.id, attempt: 0, outcome: 'no-endpoint' })]);
    expect(await h.dispatcher.deliveries()).toEqual([]);
    expect(await h.dispatcher.isDisabled()).toBe(false);
    expect(await h.dispatcher.reenable()).toBe(false);
  });

  it('reports queued events as pending and the one on the wire as in-flight', async () => {
    const { receiver, h } = await deliveringTo(() => 'hang');
    const company = await h.newCompany();

    await h.simulate(company, 'NEXT');
    await until(() => receiver.requests.length === 1);
    await h.simulate(company, 'FAILED');

    // Attempts count once they are settled: the one on the wire is not counted yet.
    const [submitted, failed] = await h.eventsOf(company);
    const common = { orderingKey: company.id, endpointId: 'default', attempts: 0 };
    expect(await h.dispatcher.deliveries()).toEqual([
      { ...common, eventId: submitted?.id, type: 'company.formation.submitted', state: 'in-flight' },
      { ...common, eventId: failed?.id, type: 'company.formation.failed', state: 'pending' },
    ]);
  });
});

/** A `storeEvents` that fails once, as a store error would, and then stores as usual. */
function failingOnce(storeEvents: StoreEvents): StoreEvents {
  let failed = false;
  return function (tx, events, now) {
    if (!failed) {
      failed = true;
      throw new Error('the outbox could not be written');
    }
    storeEvents(tx, events, now);
  };
}

describe('webhook pipeline robustness', () => {
  // Replaces "never throws from enqueue, whatever it is given": events are now built by the formation, never
  // handed in, so what must hold is that a step and its events are stored together or not at all.
  it('stores a formation step with its events or not at all', async () => {
    const { receiver, h } = await deliveringTo(() => ({ status: 200 }), { wrapStoreEvents: failingOnce });
    const [failing, later] = [await h.newCompany(), await h.newCompany()];

    await expect(h.simulate(failing, 'NEXT')).rejects.toThrow('the outbox could not be written');
    await h.simulate(later, 'NEXT');
    await h.dispatcher.idle();

    // No half step: the company did not move, and no event of it was kept or sent.
    expect((await h.companyOf(failing))?.status).toBe('PENDING');
    expect(await h.eventsOf(failing)).toEqual([]);
    expect(receiver.accepted().map((event) => event.data['serviceCompanyId'])).toEqual([later.id]);
  });

  it("drops deliveries beyond the memory store's maxQueuedPerPartner rather than growing without bound", async () => {
    const logger = captureLogger();
    const onDropped = (event: object) => logger.error(event, 'webhook event dropped: too many events waiting for delivery');
    const { receiver, h } = await deliveringTo(() => 'hang', { logger, outbox: { maxQueuedPerPartner: 3, onDropped } });
    const companies = [];
    for (let n = 0; n < 5; n += 1) companies.push(await h.newCompany());

    for (const company of companies) expect((await h.simulate(company, 'NEXT')).status).toBe('SUBMITTED');
    await until(() => receiver.requests.length === 3);

    // The first three wait (one per company, so all three on the wire); the two after them were refused.
    expect((await h.dispatcher.deliveries()).map((delivery) => delivery.orderingKey)).toEqual(companies.slice(0, 3).map((company) => company.id));
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.obj)).toEqual(
      companies.slice(3).map((company) => expect.objectContaining({ orderingKey: company.id, type: 'company.formation.submitted' })),
    );
  });

  it('aborts attempts in flight on close and keeps their events, counting no attempt against the receiver', async () => {
    const { receiver, h } = await deliveringTo(() => 'hang', { retryDelaysMs: [1] });
    const company = await h.newCompany();
    await h.simulate(company, 'NEXT');
    await until(() => receiver.requests.length === 1);

    await h.dispatcher.close();
    await h.dispatcher.idle();
    // The formation goes on while nothing delivers (as when the mock stops): its event waits in the outbox.
    await h.simulate(company, 'FAILED');
    await h.dispatcher.idle();

    expect(await h.dispatcher.journal()).toEqual([]);
    expect((await h.dispatcher.deliveries()).map((delivery) => [delivery.type, delivery.state, delivery.attempts])).toEqual([
      ['company.formation.submitted', 'pending', 0],
      ['company.formation.failed', 'pending', 0],
    ]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('accepts a pino logger as is', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const { h } = await deliveringTo(() => ({ status: 200 }), { logger });

    await h.simulate(await h.newCompany(), 'NEXT');
    await h.dispatcher.idle();

    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 20, msg: 'webhook delivered', status: 200, attempt: 1 }),
    ]);
  });
});
