/**
 * An idempotent create survives a crash of the mock: a client that sent createCompany with an Idempotency-Key and
 * never heard back (the mock was killed with `kill -9`) retries with the same key and body, and gets the one
 * company that key made, never a second one; a key that was answered 202 is replayed with that company.
 *
 * This is what Idempotency-Key promises, and what a crash can break: the company and the key's record are written
 * by two separate store writes (the handler's, then `complete()` in mock/steps/enforce-idempotency.ts), and a kill
 * between them leaves a company with no record, so the retry creates it again. One kill rarely lands there, so
 * each test kills a mock in the middle of several bursts of concurrent creates, then retries every key sent and
 * traces every company back to its key (its description carries it).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { audit, burstKilledMidway, companiesOf, retryAll, type Attempt } from './support/crash-burst.ts';
import { processFixture, type ProcessFixture, type RunningProcess } from './support/mock-processes.ts';

// Enough creates in flight at the kill for some to sit between their two writes, few enough for a two-core machine
// shared with the test runner (and Redis) to answer them without timeouts.
const inFlightPerMock = 32;
/** Answers the victim gives before it is killed: varied, so the kill lands at other points of the burst. */
const killAfterAnswers = (): number => 20 + Math.floor(Math.random() * 60);
// The formation's own writes would only add noise to the store between the two writes under test.
const quiet = ['--rate-limit', '100000', '--formation-timeline', 'manual'];

async function newCustomer(mock: RunningProcess): Promise<string> {
  const created = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
  expect(created.status, JSON.stringify(created.json)).toBe(200);
  return created.json.payload.serviceCustomerId;
}

/** Retries every key on `mock`, then checks that each made one company and that acknowledged ones replay it. */
async function expectEveryKeyOnce(mock: RunningProcess, customerId: string, attempts: readonly Attempt[]): Promise<void> {
  const retries = await retryAll(mock, attempts);
  const found = audit(attempts, retries, await companiesOf(mock, customerId));
  expect.soft(found.duplicates, `${found.duplicates.length} keys created twice (${found.summary})`).toEqual([]);
  expect.soft(found.lost, `${found.lost.length} acknowledged keys lost (${found.summary})`).toEqual([]);
  expect.soft(found.wrongRetries, `${found.wrongRetries.length} retries not answered with their key's company (${found.summary})`).toEqual([]);
}

describe('idempotent creates interrupted by kill -9 on the SQLite store', () => {
  let fixture: ProcessFixture;
  beforeAll(async () => {
    fixture = await processFixture('crash-sqlite');
  });
  afterAll(async () => {
    await fixture.cleanUp();
  });

  it('make one company per key, and replay every acknowledged one, after restarts on the same file', async () => {
    const args = ['--store', `sqlite:${join(fixture.folder, 'state.db')}`, ...quiet];
    let mock = await fixture.start(args);
    const customerId = await newCustomer(mock);
    const attempts: Attempt[] = [];
    // A kill here lands between the two writes of at least one create about 85 times in 100: that all 8 miss is
    // a one-in-a-million run.
    for (let round = 0; round < 8; round += 1) {
      attempts.push(...(await burstKilledMidway({ customerId, targets: [mock], inFlightPerMock, victim: mock, killAfterAnswers: killAfterAnswers() })));
      mock = await fixture.start(args);
    }
    await expectEveryKeyOnce(mock, customerId, attempts);
  }, 80_000);
});

describe.skipIf(!redisTestsEnabled())('idempotent creates interrupted by kill -9 of one of two replicas on Redis', () => {
  let redis: RedisServer;
  let fixture: ProcessFixture;
  beforeAll(async () => {
    [redis, fixture] = await Promise.all([startRedisServer(), processFixture('crash-redis')]);
  });
  afterAll(async () => {
    await fixture.cleanUp();
    await redis.stop();
  });

  it('make one company per key, and replay every acknowledged one, with the killed replica restarted', async () => {
    const args = ['--store', redis.url, ...quiet];
    const replicas: RunningProcess[] = [await fixture.start(args), await fixture.start(args)];
    const customerId = await newCustomer(replicas[0] as RunningProcess);
    const attempts: Attempt[] = [];
    // The window between the two writes is narrower than on SQLite (no group commit to wait for): about half the
    // kills land in it, so 12 kills miss it all about once in a thousand runs.
    for (let round = 0; round < 12; round += 1) {
      // Each replica is killed in turn: the survivor keeps serving its half of the burst meanwhile.
      const victim = round % 2;
      attempts.push(...(await burstKilledMidway({ customerId, targets: replicas, inFlightPerMock, victim: replicas[victim] as RunningProcess, killAfterAnswers: killAfterAnswers() })));
      replicas[victim] = await fixture.start(args);
    }
    // Keys the last kill left held answer 409 IN_PROGRESS until their lock runs out (10 s): the retries wait it out.
    await expectEveryKeyOnce(replicas[0] as RunningProcess, customerId, attempts);
  }, 80_000);
});
