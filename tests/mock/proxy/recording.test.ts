/**
 * Recordings (`--record FILE`): what the upstream answered through the proxy, written as a seed that holds no key,
 * loaded for the partner whose key loads it; a recording made while the upstream broke the contract says so and is
 * refused until its violations are read.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany, createCustomer, llcBody, simulate } from '../support/http-fixtures.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

const thirdKey = 'dk_test_' + 'c'.repeat(24);
/** Masked, the same as sandboxKey: dk_test_…aaaa. */
const lookalikeKey = 'dk_test_' + 'd'.repeat(20) + 'aaaa';

function recordingUpstream(url: string, record: string) {
  return { url, timeoutMs: 5_000, fallback: false, requests: 'refuse' as const, record };
}

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mock-recording-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('a recording of a sandbox that keeps the contract (another mock)', () => {
  let upstream: TestMock;
  let path: string;
  let recorded: { customers: string[]; completed: string; failed: string };
  let proxyLogs: Record<string, unknown>[];
  beforeAll(async () => {
    upstream = await startTestMock();
    path = join(folder, 'sandbox.json');
    const proxy = await startTestMock({ upstream: recordingUpstream(upstream.url, path) });
    try {
      const ada = await createCustomer(proxy);
      const grace = await createCustomer(proxy);
      const completed = await createCompany(proxy, llcBody(ada.serviceCustomerId));
      expect((await simulate(proxy, completed.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);
      const failed = await createCompany(proxy, llcBody(grace.serviceCustomerId, { nameOptions: ['Difference Engines LLC'] }));
      expect((await simulate(proxy, failed.serviceCompanyId, { target: 'FAILED', failureReason: 'NAME_UNAVAILABLE' })).status).toBe(200);
      // Another partner's traffic goes to a section of its own, even one whose masked key looks the same.
      await createCustomer(proxy, { key: otherSandboxKey });
      await createCustomer(proxy, { key: lookalikeKey });
      recorded = { customers: [ada.email, grace.email], completed: completed.name, failed: failed.name };
    } finally {
      await proxy.close();
      proxyLogs = proxy.logs;
    }
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('holds no key, one section per partner labelled with its key masked', async () => {
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(sandboxKey);
    expect(text).not.toContain(otherSandboxKey);
    const document = JSON.parse(text);
    expect(document.recording).toMatchObject({ upstream: expect.stringContaining(upstream.url), about: expect.stringMatching(/no key/) });
    expect(document.recorded.map((section: { partner: string }) => section.partner)).toEqual(['dk_test_…aaaa', 'dk_test_…bbbb', 'dk_test_…aaaa']);
    expect(document.recorded.map((section: { customers: unknown[] }) => section.customers.length)).toEqual([2, 1, 1]);
    expect(document.recorded[0].violations).toEqual([]);
    // The proxy said so as it recorded the second: loading either is refused (below).
    expect(proxyLogs.filter((line) => String(line.msg).includes('begin and end alike'))).toEqual([expect.objectContaining({ partner: 'dk_test_…aaaa' })]);
  });

  it('seeds a fresh mock for the partner whose key loads it: its customers, companies and statuses', async () => {
    const fresh = await startTestMock();
    try {
      // The look-alike's section removed, as the refusal of an ambiguous recording asks (below).
      const document = JSON.parse(await readFile(path, 'utf8'));
      document.recorded.splice(2, 1);
      const seeded = await fresh.call('/_mock/seed', { body: document });
      expect(seeded.status, JSON.stringify(seeded.json)).toBe(200);
      expect(seeded.json.payload).toEqual({ partners: 1, customers: { created: 2, existing: 0 }, companies: { created: 2, advanced: 0, skipped: 0 } });
      const customers = (await fresh.call('/v1/partner/customers?limit=100')).json.payload.data as { email: string }[];
      expect(customers.map((customer) => customer.email).sort()).toEqual([...recorded.customers].sort());
      const companies = (await fresh.call('/v1/partner/companies?limit=100')).json.payload.data as { name: string; status: string; failure: { reason: string } | null }[];
      expect(companies.find((company) => company.name === recorded.completed)?.status).toBe('COMPLETED');
      expect(companies.find((company) => company.name === recorded.failed)).toMatchObject({ status: 'FAILED', failure: { reason: 'NAME_UNAVAILABLE' } });
      // The other partner's key loads its own section only.
      const other = await fresh.call('/_mock/seed', { body: JSON.parse(await readFile(path, 'utf8')), key: otherSandboxKey });
      expect(other.json.payload.customers.created).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a key whose masked label two sections share, naming both, and loads nothing', async () => {
    const fresh = await startTestMock();
    try {
      const document = JSON.parse(await readFile(path, 'utf8'));
      for (const key of [sandboxKey, lookalikeKey]) {
        const refused = await fresh.call('/_mock/seed', { body: document, key });
        expect(refused.status, JSON.stringify(refused.json)).toBe(400);
        expect(refused.json.error.message).toMatch(/2 sections for dk_test_…aaaa/);
        expect(refused.json.error.details).toEqual([
          expect.objectContaining({ field: '/recorded/0/partner', code: 'E_NOT_ALLOWED_VALUE' }),
          expect.objectContaining({ field: '/recorded/2/partner', code: 'E_NOT_ALLOWED_VALUE' }),
        ]);
      }
      expect((await fresh.call('/v1/partner/customers?limit=100', { key: sandboxKey })).json.payload.data).toEqual([]);
      expect((await fresh.call('/v1/partner/customers?limit=100', { key: lookalikeKey })).json.payload.data).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('refuses to load without a key, or for a partner it has no section for', async () => {
    const fresh = await startTestMock();
    try {
      const document = JSON.parse(await readFile(path, 'utf8'));
      const keyless = await fresh.call('/_mock/seed', { body: document, key: null });
      expect([keyless.status, keyless.json.error.details[0].field]).toEqual([400, '/apiKey']);
      const stranger = await fresh.call('/_mock/seed', { body: document, key: thirdKey });
      expect([stranger.status, stranger.json.error.details[0]]).toEqual([400, expect.objectContaining({ field: '/recorded', message: expect.stringMatching(/dk_test_…aaaa, dk_test_…bbbb/) })]);
    } finally {
      await fresh.close();
    }
  });

  it('refuses to start over a file that exists', async () => {
    await expect(startTestMock({ upstream: recordingUpstream(upstream.url, path) })).rejects.toThrow(/--record .*exists already/);
  });
});

describe('a recording of a sandbox that breaks the contract', () => {
  let wrong: Server;
  let path: string;
  beforeAll(async () => {
    // A customer without its required email: the recording keeps what broke, not the customer.
    wrong = createServer((request, response) => {
      const customer = { serviceCustomerId: 'cus_0d5ZkH1mVwq8P3xR7tYc2N4b', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR', phoneNumber: null, createdAt: '2026-11-22T10:15:30Z', created: false, companies: [] };
      const rateLimit = { 'ratelimit-limit': '25', 'ratelimit-remaining': '24', 'ratelimit-reset': '1', 'ratelimit-policy': '25;w=1;burst=50' };
      response.writeHead(200, { ...rateLimit, 'content-type': 'application/json', 'x-request-id': String(request.headers['x-request-id']) });
      response.end(JSON.stringify({ payload: customer, error: {} }));
    });
    await new Promise<void>((resolve) => wrong.listen(0, '127.0.0.1', resolve));
    path = join(folder, 'wrong.json');
    const proxy = await startTestMock({ upstream: recordingUpstream(`http://127.0.0.1:${(wrong.address() as AddressInfo).port}`, path) });
    try {
      expect((await proxy.call('/v1/partner/customers/cus_0d5ZkH1mVwq8P3xR7tYc2N4b')).headers.get('x-mock-contract-violations')).not.toBeNull();
    } finally {
      await proxy.close();
    }
  });
  afterAll(() => {
    wrong?.close();
  });

  it('says so, and is refused with each violation until they are removed', async () => {
    const document = JSON.parse(await readFile(path, 'utf8'));
    expect(document.recorded[0].violations).toEqual([expect.stringMatching(/^getCustomer 200: .*email/)]);
    expect(document.recorded[0].customers).toEqual([]);
    const fresh = await startTestMock();
    try {
      const refused = await fresh.call('/_mock/seed', { body: document });
      expect(refused.status).toBe(400);
      expect(refused.json.error.message).toMatch(/broke the contract/);
      expect(refused.json.error.details).toEqual([expect.objectContaining({ field: '/recorded/0/violations/0', code: 'E_INVALID', message: expect.stringMatching(/email/) })]);
      document.recorded[0].violations = [];
      await writeFile(path, JSON.stringify(document));
      expect((await fresh.call('/_mock/seed', { body: document })).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});
