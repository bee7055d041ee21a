/**
 * The default endpoint disabled after the last retry of an event fails, with events made by formations: what it
 * holds meanwhile (formations go on and their events are kept), and re-enabling it, which sends the
 * `webhook_endpoint.disabled` notice ahead of everything, then the kept events in order, on a fresh retry schedule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { endpointLaneKey } from '../../../mock/webhooks/outbox/outbox-tables.ts';
import { captureLogger, contractValidator, newSecret, openResources, sleep } from './support/fixtures.ts';
import { formationHarness, type CompanyRef, type FormationHarness } from './support/formation-harness.ts';
import { startReceiver, type ReceivedEvent } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

const companyOf = (event: ReceivedEvent | undefined) => event?.data['serviceCompanyId'];
const idsOf = async (h: FormationHarness, company: CompanyRef) => (await h.eventsOf(company)).map((event) => event.id);

/**
 * An endpoint disabled by company a: the receiver refuses every delivery of a, so a's head (its submission)
 * exhausts the schedule [20, 20] and a's second event (its failure) is held behind it. b's submission was
 * delivered before a's formation began, so it is known to have gone through before the endpoint was disabled.
 */
async function disabledEndpoint() {
  const secret = newSecret();
  const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
  const logger = captureLogger();
  const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, retryDelaysMs: [20, 20], logger }));
  const [a, b] = [await h.newCompany(), await h.newCompany()];
  let accepting = false;
  receiver.policy = (request) => ({ status: accepting || companyOf(request.event) !== a.id ? 200 : 500 });

  await h.simulate(b, 'NEXT');
  await h.dispatcher.idle();
  await h.simulate(a, 'NEXT');
  await h.simulate(a, 'FAILED');
  await h.dispatcher.idle();
  const events = { a: await idsOf(h, a), b: await idsOf(h, b) };
  return { receiver, h, logger, a, b, events, accept: () => (accepting = true) };
}

/** b's formation fails while the endpoint is disabled: an event made then, which must wait for the re-enable. */
async function failLater(h: FormationHarness, b: CompanyRef): Promise<string> {
  const company = await h.simulate(b, 'FAILED');
  expect(company.status).toBe('FAILED');
  return (await idsOf(h, b)).at(-1) as string;
}

describe('a disabled webhook endpoint', () => {
  it('is disabled once the last retry of an event fails, and then nothing more is sent', async () => {
    const { receiver, h, logger, b, events } = await disabledEndpoint();

    expect(await h.dispatcher.isDisabled()).toBe(true);
    const firstOfA = events.a[0];
    expect(receiver.requests.filter((request) => request.event?.id === firstOfA)).toHaveLength(3);
    expect((await h.dispatcher.journal()).filter((entry) => entry.eventId === firstOfA).map((entry) => entry.outcome)).toEqual([
      'failed',
      'failed',
      'disabled',
    ]);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(1);

    // The formation is not held up by the endpoint: the step is taken and its event kept.
    const laterForB = await failLater(h, b);
    const sent = receiver.requests.length;
    await h.dispatcher.idle();
    // A chance for a wrong delivery to happen; nothing should.
    await sleep(60);
    expect(receiver.requests).toHaveLength(sent);

    expect((await h.dispatcher.deliveries()).map(({ eventId, state }) => ({ eventId, state }))).toEqual([
      { eventId: events.b[0], state: 'delivered' },
      { eventId: events.a[0], state: 'held' },
      { eventId: events.a[1], state: 'held' },
      { eventId: laterForB, state: 'held' },
    ]);
  });

  it('on re-enabling, sends webhook_endpoint.disabled first, then the kept events in order', async () => {
    const { receiver, h, a, b, events, accept } = await disabledEndpoint();
    const laterForB = await failLater(h, b);
    const before = receiver.requests.length;
    accept();

    expect(await h.dispatcher.reenable()).toBe(true);
    expect(await h.dispatcher.isDisabled()).toBe(false);
    await h.dispatcher.idle();

    const after = receiver.requests.slice(before);
    expect(after.every((request) => request.verified && request.answered === 200)).toBe(true);
    const [notice, ...kept] = after.map((request) => request.event as ReceivedEvent);
    expect(notice?.type).toBe('webhook_endpoint.disabled');
    const validate = await contractValidator('WebhookEndpointDisabledEvent');
    expect(validate(notice), JSON.stringify(validate.errors)).toBe(true);
    expect(notice?.data).toMatchObject({ endpointUrl: receiver.url, failedEventId: events.a[0] });
    expect(Date.parse(String(notice?.data['disabledAt']))).toBeLessThanOrEqual(Date.parse(notice!.timestamp));

    expect(kept.filter((event) => companyOf(event) === a.id).map((event) => event.id)).toEqual(events.a);
    expect(kept.filter((event) => companyOf(event) === b.id).map((event) => event.id)).toEqual([laterForB]);
    expect((await h.dispatcher.deliveries()).every((delivery) => delivery.state === 'delivered')).toBe(true);
    expect(await h.dispatcher.deliveries()).toContainEqual(
      expect.objectContaining({ eventId: notice?.id, orderingKey: endpointLaneKey, attempts: 1 }),
    );
  });

  it('gives the kept events a fresh retry schedule after re-enabling', async () => {
    const { receiver, h, a, events } = await disabledEndpoint();
    const firstOfA = events.a[0];
    let refusals = 0;
    receiver.policy = (request) => {
      if (request.event?.id !== firstOfA || refusals >= 2) return { status: 200 };
      refusals += 1;
      return { status: 500 };
    };

    await h.dispatcher.reenable();
    await h.dispatcher.idle();

    // Three attempts before the disable, three after: two more refusals did not disable it again.
    expect(await h.dispatcher.isDisabled()).toBe(false);
    expect((await h.dispatcher.journal()).filter((entry) => entry.eventId === firstOfA).map((entry) => entry.attempt)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    expect(receiver.accepted().filter((event) => companyOf(event) === a.id)).toHaveLength(2);
  });

  it('disables again when the notice itself cannot be delivered, keeping it for the next re-enable', async () => {
    const { receiver, h } = await disabledEndpoint();
    receiver.policy = () => ({ status: 500 });

    await h.dispatcher.reenable();
    await h.dispatcher.idle();
    expect(await h.dispatcher.isDisabled()).toBe(true);
    const firstNotice = receiver.requests.at(-1)?.event;
    expect(firstNotice?.type).toBe('webhook_endpoint.disabled');
    expect((await h.dispatcher.deliveries()).find((delivery) => delivery.eventId === firstNotice?.id)).toMatchObject({
      state: 'held',
      attempts: 3,
    });

    receiver.policy = () => ({ status: 200 });
    const before = receiver.requests.length;
    await h.dispatcher.reenable();
    await h.dispatcher.idle();

    // The newest notice first (it tells of the latest disable), then the one it names.
    const [second, first] = receiver.requests.slice(before).map((request) => request.event);
    expect(second?.type).toBe('webhook_endpoint.disabled');
    expect(second?.data['failedEventId']).toBe(firstNotice?.id);
    expect(first?.id).toBe(firstNotice?.id);
  });

  it('does nothing on reenable() when the endpoint is not disabled', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
    const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret }));

    expect(await h.dispatcher.reenable()).toBe(false);
    await h.simulate(await h.newCompany(), 'NEXT');
    await h.dispatcher.idle();
    expect(await h.dispatcher.reenable()).toBe(false);
    expect(receiver.requests.map((request) => request.event?.type)).toEqual(['company.formation.submitted']);
  });

  // The held deliveries fill `maxQueuedPerPartner` (the very case the cap is for: a disabled endpoint's backlog); the notice
  // must not be the one dropped, or the partner gets the kept events with no word that deliveries had stopped.
  it("sends the notice on re-enabling even when the memory store's queue is full", async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 500 })));
    const dropped: string[] = [];
    const h = resources.track(
      formationHarness({ endpointUrl: receiver.url, secret, outbox: { maxQueuedPerPartner: 2, onDropped: (event) => dropped.push(event.type) } }),
    );
    const company = await h.newCompany();
    // No retry: the submission's one failed attempt disables the endpoint; the failure waits behind it.
    await h.simulate(company, 'NEXT');
    await h.dispatcher.idle();
    await h.simulate(company, 'FAILED');
    expect((await h.dispatcher.deliveries()).map((delivery) => delivery.state)).toEqual(['held', 'held']);

    receiver.policy = () => ({ status: 200 });
    const before = receiver.requests.length;
    await h.dispatcher.reenable();
    await h.dispatcher.idle();

    expect(dropped).toEqual([]);
    expect(receiver.requests.slice(before).map((request) => request.event?.type)).toEqual([
      'webhook_endpoint.disabled',
      'company.formation.submitted',
      'company.formation.failed',
    ]);
  });
});
