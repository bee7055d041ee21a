/**
 * No partner pays for another's webhooks: two partners on one mock over real HTTP, A misbehaving (a disabled
 * endpoint holding a backlog, an endpoint that never answers, thousands of events, an event redelivered to one
 * short-lived endpoint after another), B measured. Each cap is a partner's own and each endpoint has its own slots.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createCompany, createCustomer, eventually, llcBody, simulate } from '../support/http-fixtures.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Policy, type Receiver } from '../webhooks/support/receiver.ts';
import { completedFormation, createEndpoint, otherSandboxKey, portal, sandboxKey, startPortalMock } from './support.ts';

/** A misbehaves, B is measured. */
const [partnerA, partnerB] = [sandboxKey, otherSandboxKey];
/** Events of one formation taken to COMPLETED (an LLC: submitted, completed, EIN, three documents). */
const perFormation = 6;

const opened: { mocks: TestMock[]; receivers: Receiver[] } = { mocks: [], receivers: [] };
afterEach(async () => {
  await Promise.all(opened.receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(opened.mocks.splice(0).map((mock) => mock.close()));
});

async function mockWith(settings: Parameters<typeof startPortalMock>[0] = {}): Promise<TestMock> {
  // Requests as fast as a test makes them: the rate limit is not what is measured here.
  const mock = await startPortalMock({ rateLimitPerSecond: 100_000, ...settings });
  opened.mocks.push(mock);
  return mock;
}

/** A receiver and an endpoint of the partner that posts to it, signed with the endpoint's secret. */
async function endpointFor(mock: TestMock, key: string, policy: Policy = () => ({ status: 200 })) {
  const receiver = await startReceiver(newSecret(), policy);
  opened.receivers.push(receiver);
  const endpoint = await createEndpoint(mock, key, { url: receiver.url });
  receiver.secrets = [endpoint.secret];
  return { receiver, endpoint };
}

/** A company of the partner taken to SUBMITTED: one event, the first of its lane. */
async function submittedCompany(mock: TestMock, key: string, customerId: string): Promise<string> {
  const company = await createCompany(mock, llcBody(customerId), key);
  const moved = await simulate(mock, company.serviceCompanyId, { target: 'NEXT' }, key);
  if (moved.status !== 200) throw new Error(`simulating answered ${moved.status}`);
  return company.serviceCompanyId;
}

async function eventsListed(mock: TestMock, key: string) {
  const listed = await portal(mock, key).GET('/_mock/events', { params: { query: { limit: 100 } } });
  if (listed.response.status !== 200) throw new Error(`listing events answered ${listed.response.status}: ${JSON.stringify(listed.error)}`);
  return listed.data?.payload.data ?? [];
}

describe("one partner's webhooks never cost another", () => {
  it("counts a disabled endpoint's held events against its own partner's queue, not everyone's (memory store)", async () => {
    const mock = await mockWith({ store: { kind: 'memory' }, webhookHistoryPerPartner: 20 });
    const a = await endpointFor(mock, partnerA, () => ({ status: 503 }));
    await completedFormation(mock, partnerA);
    await eventually(async () => (await portal(mock, partnerA).GET('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: a.endpoint.id } } })).data?.payload.status === 'disabled', 10_000, "A's endpoint disabled");
    // A's backlog goes past what a partner may have waiting: 5 more formations, 30 events held for 20 places.
    for (let n = 0; n < 5; n += 1) await completedFormation(mock, partnerA);

    const b = await endpointFor(mock, partnerB);
    const company = await completedFormation(mock, partnerB);
    await eventually(() => b.receiver.accepted().length === perFormation, 10_000, "B's events delivered");
    expect(b.receiver.accepted().every((event) => event.data['serviceCompanyId'] === company)).toBe(true);
    expect(await eventsListed(mock, partnerB)).toHaveLength(perFormation);
    const held = (await portal(mock, partnerA).GET('/_mock/deliveries', {})).data?.payload;
    expect(held?.deliveries.filter((delivery) => delivery.state === 'held').length).toBe(20);
  });

  it("delivers B's events while A's endpoint hangs on every attempt, A holding only its own slots", async () => {
    const mock = await mockWith({ webhookTimeoutMs: 60_000 });
    const a = await endpointFor(mock, partnerA, () => 'hang');
    const customer = await createCustomer(mock, { key: partnerA });
    // 40 companies: 40 lanes, each one's first event sent and never answered.
    for (let n = 0; n < 40; n += 1) await submittedCompany(mock, partnerA, customer.serviceCustomerId);
    await eventually(() => a.receiver.requests.length >= 4, 10_000, "A's endpoint receiving");

    const b = await endpointFor(mock, partnerB);
    const bCustomer = await createCustomer(mock, { key: partnerB });
    const company = await submittedCompany(mock, partnerB, bCustomer.serviceCustomerId);
    const first = await eventually(() => b.receiver.accepted()[0], 10_000, "B's first event");
    expect(first.data['serviceCompanyId']).toBe(company);
    // Every attempt at A is still waiting for an answer: B's event did not wait for any of them to time out.
    expect(a.receiver.requests.every((request) => request.answered === undefined)).toBe(true);
    expect(a.receiver.requests.length).toBeLessThanOrEqual(4);
    expect(a.receiver.maxConcurrent).toBeLessThanOrEqual(4);
  });

  it("keeps B's events and attempts, and lets B redeliver, however many events A makes", async () => {
    const mock = await mockWith({ webhookHistoryPerPartner: 20 });
    const b = await endpointFor(mock, partnerB);
    await completedFormation(mock, partnerB);
    await eventually(() => b.receiver.accepted().length === perFormation, 10_000, "B's events delivered");
    const a = await endpointFor(mock, partnerA);
    for (let n = 0; n < 6; n += 1) await completedFormation(mock, partnerA);
    await eventually(() => a.receiver.accepted().length === 6 * perFormation, 20_000, "A's events delivered");

    const listed = await eventsListed(mock, partnerB);
    expect(listed).toHaveLength(perFormation);
    expect(listed.every((event) => event.deliveries[0]?.attempts.length === 1)).toBe(true);
    const attempts = (await portal(mock, partnerB).GET('/_mock/deliveries', {})).data?.payload.attempts ?? [];
    expect(attempts.filter((attempt) => attempt.outcome === 'delivered')).toHaveLength(perFormation);
    const oldest = listed.at(-1)?.id as string;
    const redelivered = await portal(mock, partnerB).POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: oldest } }, body: { endpointId: b.endpoint.id } });
    expect(redelivered.response.status).toBe(202);
    expect(await eventsListed(mock, partnerA)).toHaveLength(20);
  });

  it('lists an event redelivered to 120 endpoints, each deleted in turn: deliveries go with their endpoint', async () => {
    const mock = await mockWith();
    const receiver = await startReceiver(newSecret(), () => ({ status: 200 }));
    opened.receivers.push(receiver);
    const customer = await createCustomer(mock, { key: partnerB });
    await submittedCompany(mock, partnerB, customer.serviceCustomerId);
    const [event] = await eventsListed(mock, partnerB);
    const admin = portal(mock, partnerB);
    for (let round = 0; round < 120; round += 1) {
      const endpoint = await createEndpoint(mock, partnerB, { url: receiver.url });
      receiver.secrets = [endpoint.secret];
      const sent = await admin.POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: event?.id as string } }, body: { endpointId: endpoint.id } });
      expect(sent.response.status).toBe(202);
      await eventually(() => receiver.accepted().length === round + 1, 10_000, `redelivery ${round + 1}`);
      expect((await admin.DELETE('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } } })).response.status).toBe(200);
    }
    const kept = await createEndpoint(mock, partnerB, { url: receiver.url });
    receiver.secrets = [kept.secret];
    const [listed] = await eventsListed(mock, partnerB);
    expect(listed?.id).toBe(event?.id);
    expect(listed?.deliveries).toEqual([]);
    await admin.POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: event?.id as string } }, body: { endpointId: kept.id } });
    await eventually(async () => (await eventsListed(mock, partnerB))[0]?.deliveries[0]?.state === 'delivered', 10_000, 'the last redelivery');
  });
});
