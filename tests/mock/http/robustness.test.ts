/**
 * Hostile or merely unusual input must get the contract's 4xx, never a 500: each case here once broke the mock's
 * own response check or its call stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});

afterAll(() => closeCheckingJournal(mock));

describe('bad input the response check used to turn into a 500', () => {
  it('answers E_MALFORMED_JSON for a typo in pretty-printed JSON (the parser quotes newlines)', async () => {
    const result = await mock.call('/v1/partner/customers', {
      rawBody: '{\n  "email": "ada@example.com",\n\t"firstName": Ada\n}',
      idempotencyKey: newIdempotencyKey(),
    });
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe('E_MALFORMED_JSON');
    expect(result.json.error.message).not.toMatch(/[\x00-\x1F]/);
  });

  it('answers 400 for a body nested a hundred thousand levels deep, with the usual headers', async () => {
    const depth = 100_000;
    const result = await mock.call('/v1/partner/customers', {
      rawBody: `{"email":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      idempotencyKey: newIdempotencyKey(),
    });
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe('E_VALIDATION_FAILED');
    expect(result.headers.get('x-request-id')).toBe(result.json.error.requestId);
    expect(result.headers.get('ratelimit-limit')).not.toBeNull();
  });

  it('lists at most 100 problems', async () => {
    const body: Record<string, unknown> = { ...customerBody() };
    for (let i = 0; i < 150; i += 1) body[`extra${i}`] = i;
    const result = await mock.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey() });
    expect(result.status).toBe(400);
    expect(result.json.error.details).toHaveLength(100);
  });

  it('keeps a problem’s field pointer within 512 characters', async () => {
    const result = await mock.call('/v1/partner/customers', { body: { ...customerBody(), ['k'.repeat(600)]: 1 }, idempotencyKey: newIdempotencyKey() });
    expect(result.status).toBe(400);
    const [detail] = result.json.error.details;
    expect(detail.code).toBe('E_UNKNOWN_FIELD');
    expect(detail.field.length).toBeLessThanOrEqual(512);
  });
});

describe('a sandbox operation in production', () => {
  let production: TestMock;

  beforeAll(async () => {
    production = await startTestMock({ environment: 'production' });
  });

  afterAll(() => closeCheckingJournal(production));

  it('answers 404 whatever the length of the path', async () => {
    const result = await production.call(`/v1/partner/sandbox/companies/com_${'x'.repeat(2000)}/simulate-formation`, {
      key: 'dk_live_' + 'c'.repeat(24),
      body: {},
    });
    expect(result.status).toBe(404);
    expect(result.json.error.code).toBe('E_NOT_FOUND');
  });
});

describe('a customer with more companies than its summary holds', () => {
  it('is still readable: companies lists the 1000 newest, listCompanies lists them all', async () => {
    const { createCompany, createCustomer, llcBody } = await import('../support/http-fixtures.ts');
    const customer = await createCustomer(mock);
    const created: string[] = [];
    for (let batch = 0; batch < 1001; batch += 50) {
      const companies = await Promise.all(
        Array.from({ length: Math.min(50, 1001 - batch) }, () => createCompany(mock, llcBody(customer.serviceCustomerId))),
      );
      created.push(...companies.map((company) => company.serviceCompanyId));
    }
    const read = await mock.call(`/v1/partner/customers/${customer.serviceCustomerId}`);
    expect(read.status).toBe(200);
    expect(read.json.payload.companies).toHaveLength(1000);
    const listed = await mock.call(`/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}&limit=100`);
    expect(listed.json.payload.hasMore).toBe(true);
  }, 60_000);
});

describe('pagination cursors', () => {
  it('are refused by another list and by another partner', async () => {
    const { createCustomer } = await import('../support/http-fixtures.ts');
    const { otherSandboxKey } = await import('../support/mock-harness.ts');
    await createCustomer(mock);
    await createCustomer(mock);
    const page = await mock.call('/v1/partner/customers?limit=1');
    const cursor = page.json.payload.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));

    const otherList = await mock.call(`/v1/partner/companies?cursor=${cursor}`);
    expect(otherList.status).toBe(400);
    expect(otherList.json.error.details[0].code).toBe('E_CURSOR_INVALID');

    const otherPartner = await mock.call(`/v1/partner/customers?limit=1&cursor=${cursor}`, { key: otherSandboxKey });
    expect(otherPartner.status).toBe(400);
    expect(otherPartner.json.error.details[0].code).toBe('E_CURSOR_INVALID');
  });
});

describe('shutting down', () => {
  it('does not wait for a client that never finishes its request: its connection is closed after a grace period', async () => {
    const { createConnection } = await import('node:net');
    const slow = await startTestMock();
    const { port } = new URL(slow.url);
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const headers = `Host: localhost\r\nAuthorization: ${sandboxKey}\r\nContent-Type: application/json\r\nIdempotency-Key: slow-1\r\nContent-Length: 100`;
    socket.write(`POST /v1/partner/customers HTTP/1.1\r\n${headers}\r\n\r\n{"em`);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const started = Date.now();
    await slow.close();
    socket.destroy();
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(slow.logs.some((line) => line.msg === 'closing the connections still open after the grace period')).toBe(true);
  });
});
