/**
 * Redis down under a running mock, answered as an outage: its health says the store is unavailable and why (503),
 * API requests get 503 E_SERVICE_UNAVAILABLE with Retry-After at once rather than after seconds of reconnecting,
 * the formation timeline and webhook delivery wait it out without ending the process, and everything resumes by
 * itself once Redis is back: the formation that was under way completes and every event of it arrives, in order.
 * Redis appends every write to its disk here, so that the server started again has what the one killed had.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import type { CallResult } from '../support/http-call.ts';
import { customerBody, eventually, llcBody, newIdempotencyKey, sleep } from '../support/http-fixtures.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { lifecycleOf } from './support/lifecycle.ts';
import { processFixture, type ProcessFixture, type RunningProcess } from './support/mock-processes.ts';

const enabled = redisTestsEnabled();
const secret = newSecret();
let fixture: ProcessFixture;
let redisDir: string;
let redis: RedisServer | undefined;
let receiver: Receiver;

beforeAll(async () => {
  if (!enabled) return;
  fixture = await processFixture('redis-outage');
  redisDir = mkdtempSync(join(tmpdir(), 'redis-outage-'));
  redis = await startRedisServer({ dir: redisDir });
  receiver = await startReceiver(secret, () => ({ status: 200 }));
});
afterAll(async () => {
  if (!enabled) return;
  await fixture.cleanUp();
  await redis?.stop();
  await receiver.close();
  rmSync(redisDir, { recursive: true, force: true });
});

/** A call and how long its answer took. */
async function timed(mock: RunningProcess, path: string, options: Parameters<RunningProcess['call']>[1] = {}): Promise<CallResult & { ms: number }> {
  const startedAt = performance.now();
  const answer = await mock.call(path, options);
  return { ...answer, ms: Math.round(performance.now() - startedAt) };
}

describe.skipIf(!enabled)('a mock on Redis when Redis goes down and comes back', () => {
  it('answers 503 at once while it is down, its health naming the cause, and resumes by itself', async () => {
    const server = redis as RedisServer;
    const mock = await fixture.start([
      '--store', server.url,
      '--formation-timeline', 'auto', '--formation-step-delay', '1500ms',
      '--webhook-url', receiver.url, '--webhook-secret', secret, '--webhook-timeout', '1s',
      '--webhook-retry-delays', Array.from({ length: 30 }, () => '200ms').join(','),
      '--rate-limit', '10000',
    ]);
    const customer = (await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload;
    const created = await mock.call('/v1/partner/companies', { body: llcBody(customer.serviceCustomerId), idempotencyKey: newIdempotencyKey() });
    expect(created.status).toBe(202);
    const companyId: string = created.json.payload.serviceCompanyId;

    await server.stop();
    redis = undefined;
    const health = await timed(mock, '/_mock/health', { key: null });
    expect(health.status).toBe(503);
    expect(health.json.payload).toMatchObject({ status: 'unavailable', checks: { store: { kind: 'redis', status: 'unavailable' } } });
    // What names the outage depends on the moment the health check meets it: the reconnect refused, the connection
    // closed or reset under a call in flight, or (on a loaded machine) a call past its deadline before the close.
    expect(health.json.payload.checks.store.error).toMatch(/ECONNREFUSED|ECONNRESET|closed|no answer within/);

    const calls = {
      listCustomers: await timed(mock, '/v1/partner/customers'),
      getCompany: await timed(mock, `/v1/partner/companies/${companyId}`),
      createCustomer: await timed(mock, '/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() }),
      listRequests: await timed(mock, '/_mock/requests', { key: null }),
    };
    console.log(`with Redis down: health ${health.ms} ms, ${Object.entries(calls).map(([name, answer]) => `${name} ${answer.status} in ${answer.ms} ms`).join(', ')}`);
    for (const [name, answer] of Object.entries(calls)) {
      expect(`${name}: ${answer.status} ${answer.json?.error?.code}`).toBe(`${name}: 503 E_SERVICE_UNAVAILABLE`);
      expect(answer.headers.get('retry-after'), name).toMatch(/^\d+$/);
      // Within a second is the aim; bounded generously for a loaded machine, the figures are printed above.
      expect(answer.ms, name).toBeLessThan(3_000);
    }
    expect(health.ms).toBeLessThan(3_000);

    // The formation timeline and webhook delivery meet the outage too, and go on waiting it out.
    await sleep(3_000);
    expect(mock.exitedEarly()).toBeUndefined();

    redis = await startRedisServer({ port: server.port, dir: redisDir });
    const healthy = await eventually(async () => {
      const answer = await mock.call('/_mock/health', { key: null });
      return answer.status === 200 ? answer : undefined;
    }, 15_000, 'the health to be ok again');
    expect(healthy.json.payload).toMatchObject({ status: 'ok', checks: { store: { kind: 'redis', status: 'ok' } } });
    expect((await mock.call(`/v1/partner/companies/${companyId}`)).status).toBe(200);
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBe(200);

    const expected = lifecycleOf('LLC');
    // Delivery is at least once (the contract's words): an attempt whose outcome could not be written while Redis
    // was down is made again, under the same id, which is how a receiver knows it. Each event arrives, once by id.
    const distinct = (events: ReturnType<typeof receiver.accepted>) => [...new Map(events.map((event) => [event.id, event])).values()];
    const events = await eventually(() => {
      const received = distinct(receiver.accepted().filter((event) => event.data.serviceCompanyId === companyId));
      return received.length >= expected.length ? received : undefined;
    }, 30_000, 'every event of the formation');
    expect(events.map((event) => event.type)).toEqual(expected);
    const again = receiver.accepted().filter((event) => event.data.serviceCompanyId === companyId && events.find((first) => first.id === event.id)?.type !== event.type);
    expect(again, 'a redelivery is the same event').toEqual([]);
    expect(mock.exitedEarly()).toBeUndefined();

    const log = readFileSync(mock.logFile, 'utf8');
    const backgroundFailures = log.split('\n').filter((line) => /formation timeline failed|webhook delivery failed/.test(line));
    console.log(`background failures logged during the outage: ${backgroundFailures.length}`);
  }, 90_000);
});

describe.skipIf(!enabled)('a mock on Redis when Redis stops answering without closing its connections', () => {
  it('is an outage within seconds (503, the health naming the cause), not when TCP gives up, and resumes once Redis answers again', async () => {
    // Stopped (SIGSTOP), Redis keeps its sockets open and the kernel keeps accepting: only a bound on each command
    // tells a silent server from a slow one.
    const silent = await startRedisServer();
    // Run even when the test times out, which a `finally` after an await that never settles would not.
    onTestFinished(async () => {
      process.kill(silent.pid, 'SIGCONT');
      await silent.stop();
    });
    const mock = await fixture.start(['--store', silent.url, '--rate-limit', '10000']);
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBe(200);
    process.kill(silent.pid, 'SIGSTOP');
    const [read, create] = await Promise.all([
      timed(mock, '/v1/partner/customers'),
      timed(mock, '/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() }),
    ]);
    const health = await timed(mock, '/_mock/health', { key: null });
    console.log(`with Redis stopped: listCustomers ${read.status} in ${read.ms} ms, createCustomer ${create.status} in ${create.ms} ms, health ${health.status} in ${health.ms} ms`);
    expect(`${read.status} ${read.json?.error?.code}`).toBe('503 E_SERVICE_UNAVAILABLE');
    expect(`${create.status} ${create.json?.error?.code}`).toBe('503 E_SERVICE_UNAVAILABLE');
    expect(health.status).toBe(503);
    expect(health.json.payload.checks.store.error).toMatch(/no answer within/);

    process.kill(silent.pid, 'SIGCONT');
    await eventually(async () => (await mock.call('/_mock/health', { key: null })).status === 200, 15_000, 'the health to be ok again');
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBe(200);
    expect(mock.exitedEarly()).toBeUndefined();
  }, 90_000);
});
