/**
 * The webhook relay, endpoint by endpoint: a sandbox sends the same event (the same `webhook-id`) to each of a
 * partner's relay URLs, and each endpoint's receiver gets it once, in whichever order it arrives; an endpoint gets
 * only the types it subscribes to; what anyone can send a relay URL (an event without a valid signature) is
 * counted on the endpoint and logged, never journaled in the partner's history; and a relay URL is rate-limited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../../mock/webhooks/signing.ts';
import { eventually } from '../support/http-fixtures.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { completedEvent, eventIds, sendToRelay } from './support/sandbox-events.ts';

/** An endpoint of the proxy that relays the sandbox's events to a receiver of its own. */
interface RelayingEndpoint {
  id: string;
  /** The sandbox's secret for this endpoint's relay URL. */
  sandboxSecret: string;
  receiver: Receiver;
}

async function relayingEndpoint(mock: TestMock, settings: { enabledEvents?: string[] } = {}): Promise<RelayingEndpoint> {
  const sandboxSecret = newWebhookSecret();
  const receiver = await startReceiver(newWebhookSecret(), () => ({ status: 204 }));
  const created = await mock.call('/_mock/webhook-endpoints', { body: { url: receiver.url, relay: { secret: sandboxSecret }, ...settings } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  receiver.secrets = [created.json.payload.secret];
  return { id: created.json.payload.id, sandboxSecret, receiver };
}

const nextId = eventIds('relayeach');
const received = (endpoint: RelayingEndpoint, eventId: string) => endpoint.receiver.requests.filter((request) => request.headers['webhook-id'] === eventId && request.verified);

describe("the same event sent to each of a partner's relay URLs", () => {
  let mock: TestMock;
  let first: RelayingEndpoint;
  let second: RelayingEndpoint;
  beforeAll(async () => {
    mock = await startTestMock({ webhookRetryDelaysMs: [20, 20, 20] });
    [first, second] = [await relayingEndpoint(mock), await relayingEndpoint(mock)];
  });
  afterAll(async () => {
    await closeCheckingJournal(mock);
    await Promise.all([first?.receiver.close(), second?.receiver.close()]);
  });

  it('reaches each endpoint’s receiver once, whichever endpoint it reached first', async () => {
    const [early, late] = [completedEvent(nextId()), completedEvent(nextId())];
    const verdicts = [
      await sendToRelay(mock, first.id, early, { secret: first.sandboxSecret }),
      await sendToRelay(mock, second.id, early, { secret: second.sandboxSecret }),
      // The other order: the second endpoint first.
      await sendToRelay(mock, second.id, late, { secret: second.sandboxSecret }),
      await sendToRelay(mock, first.id, late, { secret: first.sandboxSecret }),
    ];
    expect(verdicts.map((answer) => [answer.status, answer.json.payload?.forwarded])).toEqual(Array.from({ length: 4 }, () => [202, 'queued']));
    for (const endpoint of [first, second]) {
      for (const event of [early, late]) await eventually(() => received(endpoint, event.id).length === 1, 5_000, `${event.id} at ${endpoint.id}`);
    }
    // Sent again (the sandbox retried): a duplicate at each endpoint, delivered to neither again.
    const again = [await sendToRelay(mock, first.id, early, { secret: first.sandboxSecret }), await sendToRelay(mock, second.id, late, { secret: second.sandboxSecret })];
    expect(again.map((answer) => answer.json.payload.forwarded)).toEqual(['duplicate', 'duplicate']);
    // The partner's event log lists each event once, delivered to both.
    const events = (await mock.call('/_mock/events?limit=10')).json.payload.data as { id: string; deliveries: { endpointId: string }[] }[];
    for (const event of [early, late]) {
      const listed = events.filter((candidate) => candidate.id === event.id);
      expect(listed).toHaveLength(1);
      expect(listed[0]?.deliveries.map((delivery) => delivery.endpointId).sort()).toEqual([first.id, second.id].sort());
    }
    expect(received(first, early.id)).toHaveLength(1);
    expect(received(second, late.id)).toHaveLength(1);
  });
});

describe('an endpoint that subscribes to some event types', () => {
  let mock: TestMock;
  let completedOnly: RelayingEndpoint;
  beforeAll(async () => {
    mock = await startTestMock({ webhookRetryDelaysMs: [20, 20, 20] });
    completedOnly = await relayingEndpoint(mock, { enabledEvents: ['company.formation.completed'] });
  });
  afterAll(async () => {
    await closeCheckingJournal(mock);
    await completedOnly?.receiver.close();
  });

  it('is relayed only the types it subscribes to', async () => {
    const { serviceCompanyId, serviceCustomerId } = completedEvent('').data;
    const submitted = { id: nextId(), type: 'company.formation.submitted', timestamp: '2026-11-23T09:00:00Z', data: { serviceCompanyId, serviceCustomerId, status: 'SUBMITTED', submittedAt: '2026-11-23T09:00:00Z' } };
    const skipped = await sendToRelay(mock, completedOnly.id, submitted, { secret: completedOnly.sandboxSecret });
    expect(skipped.status).toBe(202);
    expect(skipped.json.payload).toMatchObject({ signature: 'valid', violations: [], forwarded: 'unsubscribed' });
    // Of the same company, so in the same lane: had the first been queued, it would have arrived first.
    const completed = completedEvent(nextId());
    const sent = await sendToRelay(mock, completedOnly.id, completed, { secret: completedOnly.sandboxSecret });
    expect([sent.status, sent.json.payload.forwarded]).toEqual([202, 'queued']);
    await eventually(() => received(completedOnly, completed.id).length === 1, 5_000, 'the completed event');
    expect(completedOnly.receiver.requests.map((request) => request.headers['webhook-id'])).toEqual([completed.id]);
  });
});

describe('an endpoint that cannot take an event now', () => {
  let mock: TestMock;
  let endpoint: RelayingEndpoint;
  beforeAll(async () => {
    // Each partner may have 10 deliveries waiting (--webhook-history 10 on the memory store), and the receiver is down.
    mock = await startTestMock({ webhookHistoryPerPartner: 10, webhookRetryDelaysMs: [60_000] });
    endpoint = await relayingEndpoint(mock);
    endpoint.receiver.policy = () => ({ status: 503 });
  });
  afterAll(async () => {
    await mock?.close();
    await endpoint?.receiver.close();
  });

  it('is switched off: not forwarded, as the mock’s own events are not', async () => {
    const off = await mock.call(`/_mock/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', body: { status: 'disabled' } });
    expect(off.json.payload.status).toBe('disabled');
    const answer = await sendToRelay(mock, endpoint.id, completedEvent(nextId()), { secret: endpoint.sandboxSecret });
    expect([answer.status, answer.json.payload.forwarded]).toEqual([202, 'switched-off']);
    expect((await mock.call(`/_mock/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', body: { status: 'enabled' } })).json.payload.status).toBe('enabled');
  });

  it("answers 503 with Retry-After, not queued, for an event past its partner's full queue, and queues it when sent again", async () => {
    const fill = Array.from({ length: 10 }, () => completedEvent(nextId(), { serviceCompanyId: `com_${nextId().slice(4)}` }));
    for (const event of fill) expect((await sendToRelay(mock, endpoint.id, event, { secret: endpoint.sandboxSecret })).json.payload.forwarded).toBe('queued');
    const target = await relayingEndpoint(mock);
    const event = completedEvent(nextId());
    const refused = await sendToRelay(mock, target.id, event, { secret: target.sandboxSecret });
    expect([refused.status, refused.json.error.code]).toEqual([503, 'E_SERVICE_UNAVAILABLE']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Room is made (the endpoint whose deliveries filled the queue goes, and they with it): the sandbox's retry is queued.
    expect((await mock.call(`/_mock/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(200);
    const again = await sendToRelay(mock, target.id, event, { secret: target.sandboxSecret });
    expect([again.status, again.json.payload.forwarded]).toEqual([202, 'queued']);
    await eventually(() => received(target, event.id).length === 1, 5_000, 'the event sent again');
    await target.receiver.close();
  });
});

describe('what anyone who knows a relay URL can send it', () => {
  let mock: TestMock;
  let target: RelayingEndpoint;
  let other: RelayingEndpoint;
  beforeAll(async () => {
    mock = await startTestMock({ rateLimitPerSecond: 2, webhookRetryDelaysMs: [20, 20, 20] });
    [target, other] = [await relayingEndpoint(mock), await relayingEndpoint(mock)];
  });
  afterAll(async () => {
    await closeCheckingJournal(mock);
    await Promise.all([target?.receiver.close(), other?.receiver.close()]);
  });

  it('refuses unsigned events, counts and logs them, and leaves the partner’s journal as it was', async () => {
    const relayed = completedEvent(nextId());
    expect((await sendToRelay(mock, target.id, relayed, { secret: target.sandboxSecret })).status).toBe(202);
    const before = await journalOf(mock);
    const padding = 'x'.repeat(16 * 1024);
    // One at a time, four in all with the one relayed: within the burst the rate allows, so that each reaches the relay.
    for (let sent = 0; sent < 2; sent += 1) {
      const refused = await sendToRelay(mock, target.id, { ...completedEvent(nextId()), padding });
      expect([refused.status, refused.json.error.code]).toEqual([401, 'E_WEBHOOK_SIGNATURE_INVALID']);
    }
    const forged = await sendToRelay(mock, target.id, completedEvent(nextId()), { secret: newWebhookSecret() });
    expect(forged.status).toBe(401);
    expect(await journalOf(mock)).toEqual(before);
    const view = (await mock.call(`/_mock/webhook-endpoints/${target.id}`)).json.payload;
    expect(view.relay.refusals).toEqual({ count: 3, last: { at: expect.any(String), signature: 'invalid', reason: expect.stringMatching(/relay\.secret/) } });
    expect((await mock.call(`/_mock/webhook-endpoints/${other.id}`)).json.payload.relay.refusals).toEqual({ count: 0, last: null });
    expect(mock.logs.filter((line) => line.msg === 'relayed webhook refused: signature' && line.endpointId === target.id)).toHaveLength(3);
    // Setting the relay's secret again starts the count afresh.
    const reset = await mock.call(`/_mock/webhook-endpoints/${target.id}`, { method: 'PATCH', body: { relay: { secret: target.sandboxSecret } } });
    expect(reset.json.payload.relay.refusals).toEqual({ count: 0, last: null });
  });

  it('limits each relay URL to the rate a key gets, answering 429 with Retry-After past it', async () => {
    const flooded = await relayingEndpoint(mock);
    // Sent at once, so that the bucket barely refills during the burst (4) however slow the machine.
    const answers = await Promise.all(Array.from({ length: 10 }, () => sendToRelay(mock, flooded.id, completedEvent(nextId()))));
    await flooded.receiver.close();
    const limited = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 401).length).toBeGreaterThanOrEqual(4);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    for (const answer of limited) {
      expect(answer.json.error.code).toBe('E_RATE_LIMITED');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('ratelimit-policy')).toBe('2;w=1;burst=4');
    }
    // Another relay URL, and the partner's own API calls, count on their own.
    expect((await sendToRelay(mock, other.id, completedEvent(nextId()), { secret: other.sandboxSecret })).status).toBe(202);
    expect((await mock.call('/v1/partner/reference/states?limit=1', { key: sandboxKey })).status).toBe(200);
  });
});
