/**
 * A partner's full queue on the memory store (as many deliveries waiting as `--webhook-history`), over real HTTP:
 * nothing is said to be queued that was not. A redelivery past it is answered 503 with Retry-After, as the admin
 * contract says, and queued when asked again once there is room; an event of the mock's own past it is listed as
 * dropped for the endpoint, in the event's deliveries and in the delivery journal, and logged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/http-fixtures.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { completedFormation, createEndpoint, portal, sandboxKey, startPortalMock } from './support.ts';

/** Events of one formation taken to COMPLETED: what fills a queue of this many. */
const perFormation = 6;

const opened: { mocks: TestMock[]; receivers: Receiver[] } = { mocks: [], receivers: [] };
afterEach(async () => {
  await Promise.all(opened.receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(opened.mocks.splice(0).map((mock) => mock.close()));
});

/** A mock whose partner's endpoint failed until disabled, holding one formation's events: its queue is full. */
async function fullQueue() {
  const mock = await startPortalMock({ store: { kind: 'memory' }, webhookHistoryPerPartner: perFormation, rateLimitPerSecond: 100_000 });
  opened.mocks.push(mock);
  const receiver = await startReceiver(newSecret(), () => ({ status: 503 }));
  opened.receivers.push(receiver);
  const endpoint = await createEndpoint(mock, sandboxKey, { url: receiver.url });
  receiver.secrets = [endpoint.secret];
  const admin = portal(mock, sandboxKey);
  await completedFormation(mock, sandboxKey);
  await eventually(async () => (await admin.GET('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } } })).data?.payload.status === 'disabled', 10_000, 'the endpoint disabled');
  const held = (await admin.GET('/_mock/deliveries', {})).data?.payload.deliveries.filter((delivery) => delivery.state === 'held') ?? [];
  expect(held).toHaveLength(perFormation);
  return { mock, receiver, endpoint, admin };
}

async function eventsOf(admin: ReturnType<typeof portal>) {
  const listed = await admin.GET('/_mock/events', { params: { query: { limit: 100 } } });
  return listed.data?.payload.data ?? [];
}

describe("a partner's full queue on the memory store", () => {
  it('answers a redelivery past it 503 with Retry-After, queuing nothing, and queues it when asked again once there is room', async () => {
    const { receiver, endpoint, admin } = await fullQueue();
    const [event] = await eventsOf(admin);
    const redeliver = () => admin.POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: event?.id as string } }, body: { endpointId: endpoint.id } });

    const refused = await redeliver();
    expect(refused.response.status).toBe(503);
    expect(refused.error?.error.code).toBe('E_SERVICE_UNAVAILABLE');
    expect(refused.error?.error.message).toMatch(/queue/);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const waiting = (await admin.GET('/_mock/deliveries', {})).data?.payload.deliveries.filter((delivery) => delivery.state !== 'delivered') ?? [];
    expect(waiting).toHaveLength(perFormation);

    // Room is made: the receiver is back and the endpoint enabled again, which sends what it held.
    receiver.policy = () => ({ status: 200 });
    expect((await admin.POST('/_mock/webhook-endpoints/{endpointId}/reenable', { params: { path: { endpointId: endpoint.id } } })).response.status).toBe(200);
    await eventually(() => receiver.accepted().length === perFormation + 1, 10_000, 'the held events and the notice delivered');
    const again = await redeliver();
    expect([again.response.status, again.data?.payload.state]).toEqual([202, 'pending']);
    await eventually(() => receiver.accepted().filter((accepted) => accepted.id === event?.id).length === 2, 10_000, 'the redelivery');
  });

  it("lists an event of the mock's own past it as dropped for the endpoint, in its deliveries and the delivery journal, and logs it", async () => {
    const { mock, endpoint, admin } = await fullQueue();
    const company = await completedFormation(mock, sandboxKey);

    const dropped = (await eventsOf(admin)).filter((event) => (event.payload as { data?: { serviceCompanyId?: string } }).data?.serviceCompanyId === company);
    expect(dropped).toHaveLength(perFormation);
    for (const event of dropped) {
      expect(event.deliveries).toEqual([{ endpointId: endpoint.id, state: 'dropped', attempts: [expect.objectContaining({ eventId: event.id, endpointId: endpoint.id, attempt: 0, outcome: 'dropped' })] }]);
    }
    const journal = (await admin.GET('/_mock/deliveries', {})).data?.payload.attempts ?? [];
    expect(journal.filter((attempt) => attempt.outcome === 'dropped').map((attempt) => attempt.eventId).sort()).toEqual(dropped.map((event) => event.id).sort());
    expect(journal.find((attempt) => attempt.outcome === 'dropped')?.error).toMatch(/queue/);
    expect(mock.logs.filter((line) => line.msg === "webhook event dropped: too many of its partner's events waiting for delivery")).toHaveLength(perFormation);
  });
});
