/**
 * Replicas: two mock processes on one Redis serve the same partners. What one creates the other serves; a key is
 * held by one request across both, so concurrent retries make one resource; and when one replica is killed while
 * formations run, the survivor takes over its steps and deliveries once their leases run out: every event arrives,
 * in order per company, under the id it always had.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { readEventStream } from '../support/event-stream-reader.ts';
import { customerBody, eventually, llcBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type ReceivedEvent, type Receiver } from '../webhooks/support/receiver.ts';
import { lifecycleOf } from './support/lifecycle.ts';
import { processFixture, type ProcessFixture, type RunningProcess } from './support/mock-processes.ts';

describe.skipIf(!redisTestsEnabled())('two mocks on one Redis', () => {
  let redis: RedisServer;
  let fixture: ProcessFixture;
  const receivers: Receiver[] = [];
  let database = 0;

  beforeAll(async () => {
    [redis, fixture] = await Promise.all([startRedisServer(), processFixture('replicas')]);
  });
  afterAll(async () => {
    await fixture.cleanUp();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await redis.stop();
  });

  /** Two replicas on a database of their own. */
  const replicas = async (extra: string[] = []): Promise<[RunningProcess, RunningProcess]> => {
    const args = ['--store', `${redis.url}/${(database += 1)}`, '--rate-limit', '100000', ...extra];
    const a = await fixture.start(args);
    return [a, await fixture.start(args)];
  };

  it('serves on one replica what was created on the other, cursors included', async () => {
    const [a, b] = await replicas(['--formation-timeline', 'manual']);
    const created = await Promise.all([1, 2, 3].map(async () => (await a.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload));
    for (const customer of created) expect((await b.call(`/v1/partner/customers/${customer.serviceCustomerId}`)).status).toBe(200);
    const first = (await a.call('/v1/partner/customers?limit=2')).json.payload;
    const second = (await b.call(`/v1/partner/customers?limit=2&cursor=${first.nextCursor}`)).json.payload;
    expect([...first.data, ...second.data].map((customer: { serviceCustomerId: string }) => customer.serviceCustomerId)).toEqual(created.map((customer) => customer.serviceCustomerId).reverse());
  });

  it("tells a change stream on one replica of what the other changed, whether a request or its timeline did it", async () => {
    const [a, b] = await replicas(['--formation-timeline', 'auto', '--formation-step-delay', '300ms']);
    const stream = await readEventStream(`${b.url}/_mock/changes`, { query: '?topics=customers,companies' });
    await stream.waitFor(1);
    const customer = (await a.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload;
    await eventually(() => stream.events.slice(1).some((event) => event.data.includes('customers')) || undefined, 5_000, "b's stream to hear a's customer");
    await a.call('/v1/partner/companies', { body: llcBody(customer.serviceCustomerId), idempotencyKey: newIdempotencyKey() });
    // The steps after are taken by whichever replica claims them; each is heard on b's stream.
    await eventually(() => stream.events.filter((event) => event.data.includes('companies')).length >= 3 || undefined, 10_000, 'the company and two steps');
    stream.close();
  });

  it('makes one company of 200 concurrent creates with one key spread over both, and answers no 5xx', async () => {
    const [a, b] = await replicas(['--formation-timeline', 'manual']);
    const customer = (await a.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload;
    const key = newIdempotencyKey();
    const body = llcBody(customer.serviceCustomerId);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => (n % 2 ? a : b).call('/v1/partner/companies', { body, idempotencyKey: key })));
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    expect(answers.filter((answer) => answer.status !== 202 && answer.status !== 409)).toEqual([]);
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((answer) => answer.json.payload.serviceCompanyId)).size).toBe(1);
    expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.json.error.code === 'E_IDEMPOTENCY_KEY_IN_PROGRESS')).toBe(true);
    for (const replica of [a, b]) expect((await replica.call(`/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}`)).json.payload.data).toHaveLength(1);
  });

  it('delivers every event, in order, after a replica is killed while formations run and half the deliveries fail', async () => {
    const secret = newSecret();
    // Refuses every other request: each event is tried at least twice, and retries cross the kill.
    const receiver = await startReceiver(secret, (request) => (request.index % 2 === 0 ? { status: 503 } : { status: 200 }));
    receivers.push(receiver);
    const [a, b] = await replicas([
      '--formation-timeline', 'auto', '--formation-step-delay', '100ms',
      '--webhook-url', receiver.url, '--webhook-secret', secret, '--webhook-timeout', '1s',
      '--webhook-retry-delays', Array.from({ length: 30 }, () => '100ms').join(','),
    ]);
    const companies: string[] = [];
    for (const replica of [a, b, a, b, a, b]) {
      const customer = (await replica.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload;
      companies.push((await replica.call('/v1/partner/companies', { body: llcBody(customer.serviceCustomerId), idempotencyKey: newIdempotencyKey() })).json.payload.serviceCompanyId);
    }
    await eventually(() => receiver.accepted().length >= 3, 10_000, 'deliveries under way');
    await a.kill9();

    const expected = lifecycleOf('LLC');
    const firstOfEach = (company: string): ReceivedEvent[] => {
      const seen = new Set<string>();
      return receiver.accepted().filter((event) => event.data['serviceCompanyId'] === company && !seen.has(event.id) && seen.add(event.id));
    };
    await eventually(() => companies.every((company) => firstOfEach(company).length === expected.length), 60_000, 'every event of every formation delivered by the survivor');
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    for (const company of companies) {
      expect(firstOfEach(company).map((event) => event.type)).toEqual(expected);
      expect((await b.call(`/v1/partner/companies/${company}`)).json.payload.status).toBe('COMPLETED');
    }
    // At least once: an event sent by the killed replica and sent again by the survivor keeps its id, and comes
    // again only where its first delivery was never settled.
    const all = receiver.accepted();
    expect(new Set(all.map((event) => event.id)).size).toBe(companies.length * expected.length);
  }, 120_000);
});
