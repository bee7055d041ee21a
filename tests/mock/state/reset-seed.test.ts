/**
 * Reset and seed, what frontend and end-to-end teams ask every mock for: `POST /_mock/reset` empties the store, or
 * only the calling partner's data; `POST /_mock/seed` and `--seed FILE` load customers and companies through the
 * API, so a bad seed gets the API's field-level errors, pointing into the seed document.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import { processFixture, type ProcessFixture } from './support/mock-processes.ts';

const seedPath = fileURLToPath(new URL('../../../examples/seed.json', import.meta.url));
const seed = JSON.parse(readFileSync(seedPath, 'utf8'));
const seedKey: string = seed.apiKey;

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

const post = async (path: string, body: unknown, key?: string) => {
  const response = await fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: key } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as any };
};
const companiesOf = async (key: string) => (await mock.call('/v1/partner/companies?limit=100', { key })).json.payload.data as { serviceCompanyId: string; name: string; status: string; ein: string | null }[];

describe('POST /_mock/seed', () => {
  it('loads the example seed through the API, each company at the status it names, and is harmless to repeat', async () => {
    const first = await post('/_mock/seed', seed);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(first.json.payload).toEqual({ partners: 1, customers: { created: 2, existing: 0 }, companies: { created: 4, advanced: 0, skipped: 0 } });
    const companies = await companiesOf(seedKey);
    const statusOf = (name: string) => companies.find((company) => company.name === name)?.status;
    expect(statusOf('Analytical Engines LLC')).toBe('COMPLETED');
    expect(statusOf('Difference Engines Inc.')).toBe('SUBMITTED');
    expect(statusOf('Calculating Machines LLC')).toBe('FAILED');
    expect(statusOf('Analytical Ventures LLC')).toBe('PENDING');
    expect(companies.find((company) => company.status === 'COMPLETED')?.ein).toMatch(/^\d{2}-\d{7}$/);

    const again = await post('/_mock/seed', seed);
    expect(again.json.payload).toEqual({ partners: 1, customers: { created: 0, existing: 2 }, companies: { created: 0, advanced: 0, skipped: 4 } });
    expect(await companiesOf(seedKey)).toHaveLength(4);
  });

  it('takes a company the customer already has on to the seed\'s status when it is short of it, and leaves one past it', async () => {
    const key = `dk_test_${'Converging00'.repeat(2)}`;
    const entry = structuredClone(seed.customers[0]);
    const pending = structuredClone(entry);
    for (const company of pending.companies) company.status = 'PENDING';
    expect((await post('/_mock/seed', { apiKey: key, customers: [pending] })).status).toBe(200);
    // Moved past the seed's SUBMITTED by the partner itself.
    const movedOn = (await companiesOf(key)).find((company) => company.name === 'Difference Engines Inc.');
    expect((await mock.call(`/v1/partner/sandbox/companies/${movedOn?.serviceCompanyId}/simulate-formation`, { key, body: { target: 'COMPLETED' } })).status).toBe(200);

    const again = await post('/_mock/seed', { apiKey: key, customers: [entry] });
    expect(again.json.payload).toEqual({ partners: 1, customers: { created: 0, existing: 1 }, companies: { created: 0, advanced: 1, skipped: 1 } });
    const statuses = Object.fromEntries((await companiesOf(key)).map((company) => [company.name, company.status]));
    expect(statuses).toEqual({ 'Analytical Engines LLC': 'COMPLETED', 'Difference Engines Inc.': 'COMPLETED' });
  });

  it('seeds the partner of the Authorization key when the document names none', async () => {
    const { apiKey: _apiKey, ...anonymous } = structuredClone(seed);
    anonymous.customers = anonymous.customers.slice(0, 1);
    const response = await post('/_mock/seed', anonymous, otherSandboxKey);
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    expect((await companiesOf(otherSandboxKey)).map((company) => company.name).sort()).toEqual(['Analytical Engines LLC', 'Difference Engines Inc.']);
  });

  it("answers a bad entry with the API's field errors, pointing into the seed", async () => {
    const bad = structuredClone(seed);
    bad.apiKey = sandboxKey;
    bad.customers[1].customer.email = 'not an email';
    const refused = await post('/_mock/seed', bad);
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('E_VALIDATION_FAILED');
    expect(refused.json.error.details).toEqual([expect.objectContaining({ field: '/customers/1/customer/email', code: 'E_FORMAT' })]);

    const badName = structuredClone(seed);
    badName.apiKey = sandboxKey;
    badName.customers[0].companies[0].formation.nameOptions = ['Analytical Engines Inc.'];
    const named = await post('/_mock/seed', badName);
    expect(named.json.error.details).toEqual([expect.objectContaining({ field: '/customers/0/companies/0/formation/nameOptions/0', code: 'E_ENTITY_SUFFIX_MISMATCH' })]);
  });

  it('applies nothing of a seed that has a refused entry: all of it, or none', async () => {
    const key = `dk_test_${'AllOrNothing'.repeat(2)}`;
    const nothingFor = async (partnerKey: string) => {
      expect((await mock.call('/v1/partner/customers?limit=100', { key: partnerKey })).json.payload.data).toEqual([]);
      expect(await companiesOf(partnerKey)).toEqual([]);
    };
    // The third entry refused by a rule of the API (the entity's suffix), which no schema states.
    const third = structuredClone(seed.customers[0]);
    third.customer.email = 'herschel@example.com';
    third.companies[0].formation.nameOptions = ['Analytical Engines Inc.'];
    const ruled = await post('/_mock/seed', { apiKey: key, customers: [seed.customers[0], seed.customers[1], third] });
    expect(ruled.status).toBe(400);
    expect(ruled.json.error.details).toEqual([expect.objectContaining({ field: '/customers/2/companies/0/formation/nameOptions/0', code: 'E_ENTITY_SUFFIX_MISMATCH' })]);
    await nothingFor(key);

    // A country the API does not know, checked by the handler.
    const country = structuredClone(seed.customers[1]);
    country.customer.email = 'somerville@example.com';
    country.customer.countryOfResidence = 'XXX';
    const unknownCountry = await post('/_mock/seed', { apiKey: key, customers: [seed.customers[0], seed.customers[1], country] });
    expect(unknownCountry.json.error.details).toEqual([expect.objectContaining({ field: '/customers/2/customer/countryOfResidence', code: 'E_COUNTRY_UNKNOWN' })]);
    await nothingFor(key);

    // A second partner whose key the API refuses: the first partner's part is not applied either.
    const twoPartners = { partners: [{ apiKey: key, customers: seed.customers }, { apiKey: `dk_live_${'0'.repeat(24)}`, customers: [seed.customers[0]] }] };
    const wrongKey = await post('/_mock/seed', twoPartners);
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.json.error.details).toEqual([expect.objectContaining({ field: '/partners/1/apiKey' })]);
    await nothingFor(key);
  });

  it('says what it created when the API refuses it for a reason that is not in the seed (a forced answer)', async () => {
    const key = `dk_test_${'ForcedAnswer'.repeat(2)}`;
    const armed = await post('/_mock/faults', { operationId: 'createCompany', status: 409, example: 'idempotencyKeyReused', count: null }, key);
    expect(armed.status, JSON.stringify(armed.json)).toBe(201);
    const refused = await post('/_mock/seed', { apiKey: key, customers: seed.customers });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain('Before it, the seed created 1 customer and 0 companies, which stay: seeding again adds the rest.');
    expect(refused.json.error.details).toEqual([expect.objectContaining({ field: '/customers/0/companies/0/formation' })]);
    await fetch(`${mock.url}/_mock/faults`, { method: 'DELETE', headers: { authorization: key } });
  });

  it('refuses a document that is not a seed, naming what is wrong', async () => {
    const notSeed = await post('/_mock/seed', { customers: 'everyone' }, sandboxKey);
    expect(notSeed.json.error.details).toEqual([expect.objectContaining({ field: '/customers', code: 'E_TYPE' })]);
    const noKey = await post('/_mock/seed', { customers: [] });
    expect(noKey.json.error.details).toEqual([expect.objectContaining({ field: '/apiKey', code: 'E_REQUIRED' })]);
    const notJson = await post('/_mock/seed', '{"customers": [');
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe('E_MALFORMED_JSON');
    const wrongKey = await post('/_mock/seed', { apiKey: 'dk_live_000000000000000000000000', customers: [{ customer: seed.customers[0].customer }] });
    expect(wrongKey.json.error.details).toEqual([expect.objectContaining({ field: '/apiKey' })]);
  });
});

describe('POST /_mock/reset', () => {
  it("with a key, empties only that partner's data", async () => {
    const mine = await createCustomer(mock, { key: sandboxKey });
    const theirs = await createCustomer(mock, { key: otherSandboxKey });
    const reset = await post('/_mock/reset', {}, sandboxKey);
    expect(reset.json.payload).toEqual({ reset: 'partner' });
    expect((await mock.call(`/v1/partner/customers/${mine.serviceCustomerId}`)).status).toBe(404);
    expect((await mock.call(`/v1/partner/customers/${theirs.serviceCustomerId}`, { key: otherSandboxKey })).status).toBe(200);
    expect((await post('/_mock/reset', {}, 'dk_test_short')).status).toBe(401);
  });

  it('refuses a seed with a lone surrogate as the API refuses such a body (400 E_MALFORMED_JSON), loading nothing', async () => {
    const freshKey = 'dk_test_LoneSurrogate000000000000001';
    const text = JSON.stringify({ apiKey: freshKey, customers: seed.customers }).replace('"firstName":"', '"firstName":"\\ud800');
    const refused = await post('/_mock/seed', text);
    expect([refused.status, refused.json.error.code], JSON.stringify(refused.json)).toEqual([400, 'E_MALFORMED_JSON']);
    expect(refused.json.error.message).toMatch(/lone surrogate/);
    expect((await mock.call('/v1/partner/customers', { key: freshKey })).json.payload.data).toEqual([]);
  });

  it('without a key, empties everything', async () => {
    const theirs = await createCustomer(mock, { key: otherSandboxKey });
    expect((await post('/_mock/reset', {})).json.payload).toEqual({ reset: 'everything' });
    expect((await mock.call(`/v1/partner/customers/${theirs.serviceCustomerId}`, { key: otherSandboxKey })).status).toBe(404);
    expect(await companiesOf(seedKey)).toEqual([]);
  });
});

describe('--seed FILE', () => {
  let fixture: ProcessFixture;
  beforeAll(async () => {
    fixture = await processFixture('seed');
  });
  afterAll(() => fixture.cleanUp());

  it('is loaded before the mock says it listens', async () => {
    const started = await fixture.start(['--store', 'memory', '--seed', seedPath, '--formation-timeline', 'manual']);
    const companies = (await started.call('/v1/partner/companies?limit=100', { key: seedKey })).json.payload.data;
    expect(companies).toHaveLength(4);
  });

  it('refuses a seed whose third entry the API refuses, and leaves nothing of the first two in the store', async () => {
    const bad = structuredClone(seed);
    bad.customers.push({ customer: { ...seed.customers[0].customer, email: 'charles.babbage@example' } });
    const path = `${fixture.folder}/third-refused.json`;
    await writeFile(path, JSON.stringify(bad));
    const store = `sqlite:${fixture.folder}/third-refused.db`;
    const refused = await fixture.start(['--store', store, '--seed', path, '--formation-timeline', 'manual']).then(
      () => undefined,
      (error: Error) => error,
    );
    const log = await readFile((/its log: (.*)$/.exec(refused?.message ?? '') as RegExpExecArray)[1] as string, 'utf8');
    expect(log).toContain('/customers/2/customer/email: E_FORMAT');
    const restarted = await fixture.start(['--store', store, '--formation-timeline', 'manual']);
    expect((await restarted.call('/v1/partner/customers?limit=100', { key: seedKey })).json.payload.data).toEqual([]);
    expect((await restarted.call('/v1/partner/companies?limit=100', { key: seedKey })).json.payload.data).toEqual([]);
  });

  it('refuses to start on a bad seed, saying where it is wrong', async () => {
    const bad = structuredClone(seed);
    bad.customers[0].customer.countryOfResidence = 'XXX';
    const path = `${fixture.folder}/bad-seed.json`;
    await writeFile(path, JSON.stringify(bad));
    const refused = await fixture.start(['--store', 'memory', '--seed', path]).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.message).toMatch(/exited before it listened; its log: (.*)/);
    const log = await readFile((/its log: (.*)$/.exec(refused?.message ?? '') as RegExpExecArray)[1] as string, 'utf8');
    expect(log).toContain('/customers/0/customer/countryOfResidence: E_COUNTRY_UNKNOWN');
  });

  it.each([
    ['a lone surrogate', (text: string) => Buffer.from(text.replace('"firstName":"', '"firstName":"\\udc00'), 'utf8'), /\/customers\/0\/customer\/firstName holds a lone surrogate/],
    ['bytes that are not UTF-8', (text: string) => Buffer.concat([Buffer.from(text.slice(0, -1), 'utf8'), Buffer.from([0x20, 0xff, 0x7d])]), /not UTF-8/],
    ['a duplicate key', (text: string) => Buffer.from(`{"customers":[],${text.slice(1)}`, 'utf8'), /"customers" appears twice/],
  ])('refuses to start on a seed file that is not I-JSON, as the API refuses such a body: %s', async (_, spoil, problem) => {
    const path = `${fixture.folder}/spoilt-seed.json`;
    await writeFile(path, spoil(JSON.stringify(seed)));
    const refused = await fixture.start(['--store', 'memory', '--seed', path]).then(
      () => undefined,
      (error: Error) => error,
    );
    const log = await readFile((/its log: (.*)$/.exec(refused?.message ?? '') as RegExpExecArray)[1] as string, 'utf8');
    expect(log).toMatch(problem);
  });
});
