/**
 * A team sharing one mock: each partner's events go to its own endpoints only, to those subscribed to their type,
 * each endpoint in order and unaffected by another's failures; a rotated secret signs beside the old one for the
 * overlap; a redelivery keeps the event's id; re-enabling an endpoint disabled after failures sends the notice first.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { documentTypesFor } from '../../../mock/documents/content.ts';
import { eventually, sleep } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { completedFormation, createEndpoint, otherSandboxKey, portal, resetMock, sandboxKey, startPortalMock } from './support.ts';

const lifecycle = ['company.formation.submitted', 'company.formation.completed', 'company.ein.issued', ...documentTypesFor('LLC').map(() => 'document.ready')];

let mock: TestMock;
const receivers: Receiver[] = [];

beforeAll(async () => {
  mock = await startPortalMock();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await resetMock(mock);
});
afterAll(() => closeCheckingJournal(mock));

/** A receiver that accepts everything signed with the endpoint's secret; the secret is known once the endpoint is. */
async function receiver(policy: Parameters<typeof startReceiver>[1] = () => ({ status: 200 })): Promise<Receiver> {
  const started = await startReceiver(newSecret(), policy);
  receivers.push(started);
  return started;
}

const eventsOf = (received: Receiver, company: string) => received.accepted().filter((event) => event.data['serviceCompanyId'] === company);

describe('webhook endpoints in the partner portal', () => {
  it("deliver each partner's events to its own endpoints only", async () => {
    const [mine, theirs] = [await receiver(), await receiver()];
    mine.secrets = [(await createEndpoint(mock, sandboxKey, { url: mine.url })).secret];
    theirs.secrets = [(await createEndpoint(mock, otherSandboxKey, { url: theirs.url })).secret];
    const [myCompany, theirCompany] = [await completedFormation(mock, sandboxKey), await completedFormation(mock, otherSandboxKey)];

    await eventually(() => eventsOf(mine, myCompany).length === lifecycle.length && eventsOf(theirs, theirCompany).length === lifecycle.length, 10_000, 'both formations delivered');
    await sleep(50);
    expect(mine.requests.every((request) => request.verified)).toBe(true);
    expect(theirs.requests.every((request) => request.verified)).toBe(true);
    expect(mine.accepted().map((event) => event.data['serviceCompanyId'])).toEqual(lifecycle.map(() => myCompany));
    expect(theirs.accepted().map((event) => event.data['serviceCompanyId'])).toEqual(lifecycle.map(() => theirCompany));
  });

  it('deliver to an endpoint only the event types it subscribed to', async () => {
    const [documents, everything] = [await receiver(), await receiver()];
    documents.secrets = [(await createEndpoint(mock, sandboxKey, { url: documents.url, enabledEvents: ['document.ready'] })).secret];
    everything.secrets = [(await createEndpoint(mock, sandboxKey, { url: everything.url })).secret];
    const company = await completedFormation(mock, sandboxKey);

    await eventually(() => eventsOf(everything, company).length === lifecycle.length, 10_000, 'every event to the endpoint subscribed to all');
    await eventually(() => eventsOf(documents, company).length === 3, 10_000, 'the documents to the other');
    await sleep(50);
    expect(documents.accepted().map((event) => event.type)).toEqual(['document.ready', 'document.ready', 'document.ready']);
  });

  it("deliver to each endpoint on its own: one failing does not hold up another, which gets every event in order", async () => {
    const [failing, healthy] = [await receiver(() => ({ status: 500 })), await receiver()];
    const broken = await createEndpoint(mock, sandboxKey, { url: failing.url });
    failing.secrets = [broken.secret];
    healthy.secrets = [(await createEndpoint(mock, sandboxKey, { url: healthy.url })).secret];
    const company = await completedFormation(mock, sandboxKey);

    await eventually(() => eventsOf(healthy, company).length === lifecycle.length, 10_000, 'every event to the healthy endpoint');
    expect(eventsOf(healthy, company).map((event) => event.type)).toEqual(lifecycle);
    const disabled = await eventually(async () => {
      const { data } = await portal(mock, sandboxKey).GET('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: broken.id } } });
      return data?.payload.status === 'disabled' && data.payload;
    }, 10_000, 'the failing endpoint disabled');
    expect(disabled.disabled).toMatchObject({ reason: 'failures', failedEventId: failing.requests[0]?.event?.id });
    expect(failing.requests).toHaveLength(3);
  });

  it('sign with the old and the new secret during a rotation: a receiver holding either verifies, one holding neither does not', async () => {
    const endpointReceiver = await receiver();
    const created = await createEndpoint(mock, sandboxKey, { url: endpointReceiver.url });
    const rotated = await portal(mock, sandboxKey).POST('/_mock/webhook-endpoints/{endpointId}/rotate-secret', { params: { path: { endpointId: created.id } }, body: { overlapSeconds: 3600 } });
    expect(rotated.response.status).toBe(200);
    const newSecret_ = rotated.data?.payload.secret as string;
    expect(newSecret_).not.toBe(created.secret);
    expect(rotated.data?.payload.secretRotation?.previousSecretExpiresAt).toBeDefined();
    endpointReceiver.secrets = [newSecret_];
    const company = await completedFormation(mock, sandboxKey);

    await eventually(() => eventsOf(endpointReceiver, company).length === lifecycle.length, 10_000, 'the formation delivered');
    const delivered = endpointReceiver.requests[0] as (typeof endpointReceiver.requests)[number];
    expect(delivered.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    const verifies = (secret: string) => {
      try {
        new Webhook(secret).verify(delivered.body, delivered.headers);
        return true;
      } catch {
        return false;
      }
    };
    expect(verifies(created.secret)).toBe(true);
    expect(verifies(newSecret_)).toBe(true);
    expect(verifies(newSecret())).toBe(false);
  });

  it('sign with the new secret alone once the overlap is over', async () => {
    const endpointReceiver = await receiver();
    const created = await createEndpoint(mock, sandboxKey, { url: endpointReceiver.url });
    const rotated = await portal(mock, sandboxKey).POST('/_mock/webhook-endpoints/{endpointId}/rotate-secret', { params: { path: { endpointId: created.id } }, body: { overlapSeconds: 0 } });
    endpointReceiver.secrets = [rotated.data?.payload.secret as string];
    const company = await completedFormation(mock, sandboxKey);

    await eventually(() => eventsOf(endpointReceiver, company).length === lifecycle.length, 10_000, 'the formation delivered');
    expect(endpointReceiver.requests.every((request) => request.headers['webhook-signature']?.split(' ').length === 1)).toBe(true);
    expect(rotated.data?.payload.secretRotation).toBeNull();
  });

  it('redeliver an event to an endpoint under the same webhook-id and bytes, and list it with its attempts', async () => {
    const endpointReceiver = await receiver();
    const endpoint = await createEndpoint(mock, sandboxKey, { url: endpointReceiver.url });
    endpointReceiver.secrets = [endpoint.secret];
    const company = await completedFormation(mock, sandboxKey);
    await eventually(() => eventsOf(endpointReceiver, company).length === lifecycle.length, 10_000, 'the formation delivered');
    const first = endpointReceiver.requests[0] as (typeof endpointReceiver.requests)[number];

    const redelivered = await portal(mock, sandboxKey).POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: first.event?.id as string } }, body: { endpointId: endpoint.id } });
    expect(redelivered.response.status).toBe(202);
    expect(redelivered.data?.payload).toEqual({ eventId: first.event?.id, endpointId: endpoint.id, state: 'pending' });
    const again = await eventually(() => endpointReceiver.requests.slice(lifecycle.length).find((request) => request.event?.id === first.event?.id), 10_000, 'the redelivery');
    expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(again.body).toBe(first.body);

    const listed = await portal(mock, sandboxKey).GET('/_mock/events', { params: { query: { limit: 100 } } });
    const event = listed.data?.payload.data.find((candidate) => candidate.id === first.event?.id);
    expect(event?.payload).toEqual(JSON.parse(first.body));
    expect(event?.deliveries).toEqual([expect.objectContaining({ endpointId: endpoint.id, state: 'delivered', attempts: [expect.objectContaining({ outcome: 'delivered' }), expect.objectContaining({ outcome: 'delivered' })] })]);
    const other = await portal(mock, otherSandboxKey).POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId: first.event?.id as string } }, body: { endpointId: endpoint.id } });
    expect(other.response.status).toBe(404);
  });

  it('send webhook_endpoint.disabled first when an endpoint disabled after failures is re-enabled, then the held events in order', async () => {
    let accepting = false;
    const endpointReceiver = await receiver(() => (accepting ? { status: 200 } : { status: 503 }));
    const endpoint = await createEndpoint(mock, sandboxKey, { url: endpointReceiver.url });
    endpointReceiver.secrets = [endpoint.secret];
    const company = await completedFormation(mock, sandboxKey);
    const admin = portal(mock, sandboxKey);
    await eventually(async () => (await admin.GET('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } } })).data?.payload.status === 'disabled', 10_000, 'the endpoint disabled');

    accepting = true;
    const reenabled = await admin.POST('/_mock/webhook-endpoints/{endpointId}/reenable', { params: { path: { endpointId: endpoint.id } } });
    expect(reenabled.data?.payload.status).toBe('enabled');
    await eventually(() => endpointReceiver.accepted().length === lifecycle.length + 1, 10_000, 'the notice and the held events');
    const [notice, ...held] = endpointReceiver.accepted();
    expect(notice?.type).toBe('webhook_endpoint.disabled');
    expect(notice?.data['endpointUrl']).toBe(endpointReceiver.url);
    expect(held.map((event) => event.type)).toEqual(lifecycle);
    expect(held.every((event) => event.data['serviceCompanyId'] === company)).toBe(true);
  });

  it('send nothing to an endpoint switched off, and resume without a notice when it is switched on', async () => {
    const endpointReceiver = await receiver();
    const endpoint = await createEndpoint(mock, sandboxKey, { url: endpointReceiver.url });
    endpointReceiver.secrets = [endpoint.secret];
    const admin = portal(mock, sandboxKey);
    const off = await admin.PATCH('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } }, body: { status: 'disabled' } });
    expect(off.data?.payload).toMatchObject({ status: 'disabled', disabled: { reason: 'requested', failedEventId: null } });
    await completedFormation(mock, sandboxKey);
    await sleep(100);
    expect(endpointReceiver.requests).toEqual([]);

    const on = await admin.PATCH('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: endpoint.id } }, body: { status: 'enabled' } });
    expect(on.data?.payload).toMatchObject({ status: 'enabled', disabled: null });
    const company = await completedFormation(mock, sandboxKey);
    await eventually(() => eventsOf(endpointReceiver, company).length === lifecycle.length, 10_000, 'the next formation delivered');
    expect(endpointReceiver.accepted().map((event) => event.type)).toEqual(lifecycle);
  });
});
