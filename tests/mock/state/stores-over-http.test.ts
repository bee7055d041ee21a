/**
 * What the contract promises of creates and resets, over HTTP, on every store that runs here: idempotency records
 * are kept per partner (with a cap of 100, another partner's 150 creates must not evict this partner's key, so its
 * retry replays instead of creating a second company); 200 concurrent creates with one key make one company; a
 * partner's reset removes its companies, keys and journal, and no other partner's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMockJournal } from '../../../contract-tests/support/mock-admin.ts';
import { contractFacts } from '../../../generated/contract-facts.ts';
import { createKeyChecker } from '../../../mock/auth/api-keys.ts';
import { idempotencyRecords } from '../../../mock/idempotency/idempotency-records.ts';
import type { StoreSpec } from '../../../mock/store/open-store.ts';
import { redisTestsEnabled, startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { createCustomer, customerBody, llcBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

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

const pageOf = async (mock: TestMock, path: string, key?: string) => (await mock.call(path, key ? { key } : {})).json.payload.data as unknown[];

describe.each(stores)('on the $name store', ({ spec, enabled }) => {
  it.skipIf(!enabled)('makes one company of 200 concurrent creates with one key, and answers no 5xx', async () => {
    let mock: TestMock | undefined;
    try {
      mock = await startTestMock({ store: await spec() });
      const customer = await createCustomer(mock);
      const key = newIdempotencyKey();
      const body = llcBody(customer.serviceCustomerId);
      const answers = await Promise.all(Array.from({ length: 200 }, () => (mock as TestMock).call('/v1/partner/companies', { body, idempotencyKey: key })));
      expect(answers.filter((answer) => answer.status !== 202 && answer.status !== 409)).toEqual([]);
      expect(new Set(answers.filter((answer) => answer.status === 202).map((answer) => answer.json.payload.serviceCompanyId)).size).toBe(1);
      expect(await pageOf(mock, `/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}`)).toHaveLength(1);
    } finally {
      await closeCheckingJournal(mock);
    }
  }, 60_000);

  it.skipIf(!enabled)("resets one partner's companies, keys and journal, and no other partner's", async () => {
    let mock: TestMock | undefined;
    try {
      mock = await startTestMock({ store: await spec() });
      const companies: Record<string, string> = {};
      const keys: Record<string, string> = {};
      for (const partner of [sandboxKey, otherSandboxKey]) {
        const customer = await createCustomer(mock, { key: partner });
        keys[partner] = newIdempotencyKey();
        companies[partner] = (await mock.call('/v1/partner/companies', { key: partner, body: llcBody(customer.serviceCustomerId), idempotencyKey: keys[partner] })).json.payload.serviceCompanyId;
      }
      expect((await mock.call(`/v1/partner/companies/${companies[sandboxKey]}`)).status).toBe(200);
      const reset = await fetch(`${mock.url}/_mock/reset`, { method: 'POST', headers: { authorization: sandboxKey } });
      expect(reset.status).toBe(200);
      expect((await mock.call(`/v1/partner/companies/${companies[sandboxKey]}`)).status).toBe(404);
      expect((await mock.call(`/v1/partner/companies/${companies[otherSandboxKey]}`, { key: otherSandboxKey })).status).toBe(200);
      // The key is free again: the same create with another body is not a reuse.
      const customer = await createCustomer(mock);
      expect((await mock.call('/v1/partner/companies', { body: llcBody(customer.serviceCustomerId), idempotencyKey: keys[sandboxKey] })).status).toBe(202);
      const journal = await readMockJournal(mock.url);
      // Of the two reads of the company, the one before the reset went with the partner's journal.
      expect(journal.filter((entry) => entry.path === `/v1/partner/companies/${companies[sandboxKey]}` && entry.partner !== null)).toHaveLength(1);
    } finally {
      await closeCheckingJournal(mock);
    }
  }, 60_000);

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
      expect(busy.ok && (await mock.store.read((tx) => idempotencyRecords({ ttlMs: contractFacts.limits.idempotencyKeyRetentionSeconds * 1000, maxPerPartner: 100 }).count(tx, busy.partner.id, Date.now())))).toBe(100);
    } finally {
      await closeCheckingJournal(mock);
    }
  }, 60_000);
});
