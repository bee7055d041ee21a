/**
 * Idempotency records are kept per partner: with a cap of 100 records, another partner's 150 creates must not evict
 * this partner's key, so its retry replays instead of creating a second company. On every backend that runs here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeyChecker } from '../../../mock/auth/api-keys.ts';
import type { StoreSpec } from '../../../mock/store/open-store.ts';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { createCustomer, customerBody, llcBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

const folder = mkdtempSync(join(tmpdir(), 'idempotency-partners-'));
let redis: RedisServer | undefined;
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await redis?.stop();
});

const stores: { name: string; spec: () => Promise<StoreSpec>; enabled: boolean }[] = [
  { name: 'memory', enabled: true, spec: async () => ({ kind: 'memory' }) },
  { name: 'sqlite', enabled: true, spec: async () => ({ kind: 'sqlite', path: join(folder, 'state.db') }) },
  { name: 'redis', enabled: redisTestsEnabled(), spec: async () => ({ kind: 'redis', url: (redis ??= await startRedisServer()).url }) },
];

describe.each(stores)('on the $name store', ({ spec, enabled }) => {
  it.skipIf(!enabled)("another partner's creates never cost this partner a replay", async () => {
    let mock: TestMock | undefined;
    try {
      mock = await startTestMock({ store: await spec(), idempotencyMaxRecords: 100 });
      const customer = await createCustomer(mock);
      const key = newIdempotencyKey();
      const body = llcBody(customer.serviceCustomerId);
      const first = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
      expect(first.status).toBe(202);

      for (let n = 0; n < 150; n += 1) {
        const response = await mock.call('/v1/partner/customers', { key: otherSandboxKey, body: customerBody(), idempotencyKey: newIdempotencyKey() });
        expect(response.status).toBe(200);
      }

      const retry = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.json.payload.serviceCompanyId).toBe(first.json.payload.serviceCompanyId);
      const companies = (await mock.call(`/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}`)).json.payload.data;
      expect(companies).toHaveLength(1);
      // The cap still holds for the busy partner: its own oldest keys went.
      const busy = createKeyChecker('sandbox').check(otherSandboxKey);
      expect(busy.ok && (await mock.store.idempotency.count(busy.partner.id, Date.now()))).toBe(100);
    } finally {
      await closeCheckingJournal(mock);
    }
  }, 60_000);
});
