/** Idempotency of the creates over HTTP, as the contract's "Idempotency" section publishes it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Customer } from '../../../generated/openapi.js';
import { createKeyChecker } from '../../../mock/auth/api-keys.ts';
import { createCustomer as storeCustomer } from '../../../mock/customers/customer-records.ts';
import { validationFailed } from '../../../mock/http/api-error.ts';
import { change, type Handlers } from '../../../mock/pipeline/handler.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { createCustomer, customerBody, eventually, llcBody, newIdempotencyKey, sleep, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { quickTimelineSettings, sandboxKey, startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let mock: TestMock;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver(secret, () => ({ status: 200 }));
  mock = await startTestMock(quickTimelineSettings(receiver.url, secret));
});
afterAll(async () => {
  await closeCheckingJournal(mock);
  await receiver?.close();
});

const postCustomer = (body: unknown, idempotencyKey?: string, headers?: Record<string, string>) => mock.call('/v1/partner/customers', { body, idempotencyKey, headers });

function expectSameAnswer(replay: CallResult, original: CallResult): void {
  expect(replay.status).toBe(original.status);
  expect(replay.json).toEqual(original.json);
  expect(original.headers.get('idempotent-replayed')).toBe('false');
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

describe('the same key with the same body', () => {
  it("replays the original status and body, with Idempotent-Replayed: true and the retry's own x-request-id", async () => {
    const key = newIdempotencyKey();
    const body = customerBody();
    const original = await postCustomer(body, key, { 'x-request-id': 'idem-original-1' });
    expect(original.status).toBe(200);
    expect(original.json.payload.created).toBe(true);
    expect(original.headers.get('x-request-id')).toBe('idem-original-1');

    const replay = await postCustomer(body, key, { 'x-request-id': 'idem-retry-1' });
    expectSameAnswer(replay, original);
    expect(replay.headers.get('x-request-id')).toBe('idem-retry-1');
    // The replay still says `created: true`: it is the answer to the request that created the customer.
    expect(replay.json.payload.created).toBe(true);
  });

  it('replays when the body has its keys in another order and other white space', async () => {
    const key = newIdempotencyKey();
    const body = customerBody();
    const original = await postCustomer(body, key);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await mock.call('/v1/partner/customers', { rawBody: JSON.stringify(reordered, null, 4), idempotencyKey: key });
    expectSameAnswer(replay, original);
  });

  it('does not replay across operations: the key is scoped to the operation', async () => {
    const key = newIdempotencyKey();
    const customer = await postCustomer(customerBody(), key);
    expect(customer.status).toBe(200);
    const company = await mock.call('/v1/partner/companies', { body: llcBody(customer.json.payload.serviceCustomerId), idempotencyKey: key });
    expect(company.status).toBe(202);
    expect(company.headers.get('idempotent-replayed')).toBe('false');
  });
});

describe('the same key with another body', () => {
  it('is refused with 409 E_IDEMPOTENCY_KEY_REUSED, and nothing is created', async () => {
    const key = newIdempotencyKey();
    expect((await postCustomer(customerBody(), key)).status).toBe(200);
    const other = customerBody();
    const response = await postCustomer(other, key);
    expect(response.status).toBe(409);
    expect(response.json).toMatchObject({ payload: null, error: { code: 'E_IDEMPOTENCY_KEY_REUSED' } });
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    const found = await mock.call(`/v1/partner/customers?email=${encodeURIComponent(other.email)}`);
    expect(found.json.payload.data).toEqual([]);
  });
});

describe('the Idempotency-Key header', () => {
  it('is required: 400 E_IDEMPOTENCY_KEY_REQUIRED', async () => {
    const response = await postCustomer(customerBody());
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('E_IDEMPOTENCY_KEY_REQUIRED');
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'my key'],
    ['empty', ''],
  ])('is refused when %s: 400 E_IDEMPOTENCY_KEY_INVALID', async (_label, key) => {
    const response = await postCustomer(customerBody(), key);
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('E_IDEMPOTENCY_KEY_INVALID');
  });

  it('takes 255 visible ASCII characters', async () => {
    const key = `${'~!'.repeat(127)}x`;
    expect(key).toHaveLength(255);
    const body = customerBody();
    expect((await postCustomer(body, key)).status).toBe(200);
    expect((await postCustomer(body, key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('is not stored when refused: the corrected request with the same key goes through', async () => {
    const body = customerBody();
    expect((await mock.call('/v1/partner/customers', { key: null, body, idempotencyKey: 'refused-then-fine' })).status).toBe(401);
    const response = await postCustomer(body, 'refused-then-fine');
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBe('false');
  });
});

describe('a 4xx outcome', () => {
  it('is stored and replayed, even once the same body would succeed', async () => {
    const partnerId = (createKeyChecker('sandbox').check(sandboxKey) as { ok: true; partner: { id: string } }).partner.id;
    const customerId = 'cus_IdempotencyLaterCustomer';
    const body = llcBody(customerId);
    const key = newIdempotencyKey();
    const first = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
    expect(validationDetails(first)).toEqual([expect.objectContaining({ field: '/serviceCustomerId', code: 'E_CUSTOMER_NOT_FOUND' })]);

    // The customer now exists, so the same body is valid…
    const later = { serviceCustomerId: customerId, email: 'later@example.com', firstName: 'Later', lastName: 'Customer', countryOfResidence: 'USA', phoneNumber: null, createdAt: new Date().toISOString() };
    await mock.store.write((tx) => storeCustomer(tx, partnerId, later));
    expect((await mock.call(`/v1/partner/customers/${customerId}`)).status).toBe(200);

    // …but the key already has its answer.
    const replay = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
    expectSameAnswer(replay, first);
    // The body is the original's, so its requestId names the original request; the header names this one.
    expect(replay.json.error.requestId).toBe(first.headers.get('x-request-id'));
    expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    // The replay is journaled with the stored answer's error code, as the original was.
    const replays = (await journalOf(mock)).filter((entry) => entry.replayed && entry.operationId === 'createCompany');
    expect(replays.at(-1)).toMatchObject({ status: 400, errorCode: 'E_VALIDATION_FAILED' });
    expect((await mock.call(`/v1/partner/companies?serviceCustomerId=${customerId}`)).json.payload.data).toEqual([]);

    // A fresh key is how the corrected request is sent.
    expect((await mock.call('/v1/partner/companies', { body, idempotencyKey: newIdempotencyKey() })).status).toBe(202);
  });

  it('is not stored when it is a 429: the retry with the same key, after Retry-After, runs', async () => {
    const armed = await fetch(`${mock.url}/_mock/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operationId: 'createCustomer', status: 429, count: 1 }) });
    expect(armed.status).toBe(201);
    const body = customerBody();
    const key = newIdempotencyKey();
    const limited = await postCustomer(body, key);
    expect(limited.status).toBe(429);
    const retry = await postCustomer(body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('false');
  });

  it('is stored for a body that is not JSON too', async () => {
    const key = newIdempotencyKey();
    const first = await mock.call('/v1/partner/customers', { rawBody: '{"email":', idempotencyKey: key });
    expect(first.json.error.code).toBe('E_MALFORMED_JSON');
    expectSameAnswer(await mock.call('/v1/partner/customers', { rawBody: '{"email":', idempotencyKey: key }), first);
    expect((await mock.call('/v1/partner/customers', { rawBody: '{"email": ', idempotencyKey: key })).json.error.code).toBe('E_IDEMPOTENCY_KEY_REUSED');
  });
});

describe('a createCompany replay', () => {
  it('creates no second company and sends no webhook again', async () => {
    const customer = await createCustomer(mock);
    const key = newIdempotencyKey();
    const body = llcBody(customer.serviceCustomerId);
    const original = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
    expect(original.status).toBe(202);
    const companyId: string = original.json.payload.serviceCompanyId;
    const eventsOf = () => receiver.accepted().filter((event) => event.data['serviceCompanyId'] === companyId);
    // The whole formation: submitted, completed, ein.issued and three document.ready.
    await eventually(() => eventsOf().length === 6, 15_000, 'six events');

    const replay = await mock.call('/v1/partner/companies', { body, idempotencyKey: key });
    expectSameAnswer(replay, original);
    expect(replay.json.payload.status).toBe('PENDING');

    await sleep(200);
    expect(eventsOf()).toHaveLength(6);
    expect(receiver.requests.filter((request) => request.event?.data['serviceCompanyId'] === companyId)).toHaveLength(6);
    const companies = await mock.call(`/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}`);
    expect(companies.json.payload.data.map((company: { serviceCompanyId: string }) => company.serviceCompanyId)).toEqual([companyId]);
  });
});

describe('200 concurrent createCustomer with one key and one body', () => {
  it('create exactly one customer, and every answer is the original, a replay or 409 in progress', async () => {
    const key = newIdempotencyKey();
    const body = customerBody();
    const responses = await Promise.all(Array.from({ length: 200 }, () => postCustomer(body, key)));
    const kinds = responses.map((response) => {
      if (response.status === 200) return response.headers.get('idempotent-replayed') === 'false' ? 'original' : 'replay';
      if (response.status === 409 && response.json.error.code === 'E_IDEMPOTENCY_KEY_IN_PROGRESS') return 'in-progress';
      return `unexpected ${response.status} ${JSON.stringify(response.json)}`;
    });
    expect(kinds.filter((kind) => kind.startsWith('unexpected'))).toEqual([]);
    expect(kinds.filter((kind) => kind === 'original')).toHaveLength(1);
    const created = responses.filter((response) => response.status === 200).map((response) => response.json.payload.serviceCustomerId);
    expect(new Set(created).size).toBe(1);
    const listed = await mock.call(`/v1/partner/customers?email=${encodeURIComponent(body.email)}`);
    expect(listed.json.payload.data).toHaveLength(1);
  });
});

describe('with handlers that fail or wait', () => {
  let flaky: TestMock;
  const calls = new Map<string, number>();
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  let gate = Promise.resolve();
  let inHandler = Promise.resolve();
  const expected5xx: string[] = [];

  const customerOf = (body: { email: string; firstName: string; lastName: string; countryOfResidence: string }, serviceCustomerId: string): Customer => ({
    serviceCustomerId,
    email: body.email,
    firstName: body.firstName,
    lastName: body.lastName,
    countryOfResidence: body.countryOfResidence,
    phoneNumber: null,
    created: true,
    companies: [],
    createdAt: new Date().toISOString(),
  });

  const handlers: Partial<Handlers> = {
    async createCustomer(context) {
      const body = context.body as Customer;
      const call = (calls.get(body.email) ?? 0) + 1;
      calls.set(body.email, call);
      const [behaviour] = body.email.split('.');
      if (behaviour === 'throws' && call === 1) throw new Error('the database went away');
      if (behaviour === 'breaks' && call === 1) return change(function () { return { status: 200, payload: { ...customerOf(body, 'cus_BrokenAnswer000000000000'), created: 'yes' } } as never; });
      if (behaviour === 'refused') throw validationFailed([{ in: 'body', field: '/email', code: 'E_FORMAT', message: 'Refused by the test.' }]);
      if (behaviour === 'waits') {
        entered();
        await gate;
      }
      return change(function () { return { status: 200 as const, payload: customerOf(body, `cus_${String(call).padStart(24, '0')}`) }; });
    },
  };

  beforeAll(async () => {
    flaky = await startTestMock({}, { handlers });
  });
  afterAll(() => closeCheckingJournal(flaky, { expected5xx }));

  const post = (body: unknown, key: string, requestId?: string) =>
    flaky.call('/v1/partner/customers', { body, idempotencyKey: key, headers: requestId ? { 'x-request-id': requestId } : {} });

  it('does not store a 5xx: the retry with the same key runs again and succeeds', async () => {
    const body = customerBody({ email: `throws.${newIdempotencyKey()}@example.com` });
    const key = newIdempotencyKey();
    expected5xx.push('idem-throws-1');
    const first = await post(body, key, 'idem-throws-1');
    expect(first.status).toBe(500);
    expect(first.json.error.code).toBe('E_INTERNAL');
    const retry = await post(body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('false');
    expect(calls.get(body.email)).toBe(2);
    expect((await post(body, key)).headers.get('idempotent-replayed')).toBe('true');
    expect(calls.get(body.email)).toBe(2);
  });

  it('does not store an answer that broke the contract (sent as a 500) either', async () => {
    const body = customerBody({ email: `breaks.${newIdempotencyKey()}@example.com` });
    const key = newIdempotencyKey();
    expected5xx.push('idem-breaks-1');
    const first = await post(body, key, 'idem-breaks-1');
    expect(first.status).toBe(500);
    expect(first.json.error.code).toBe('E_INTERNAL');
    const retry = await post(body, key);
    expect(retry.status, JSON.stringify(retry.json)).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('false');
    expect(retry.json.payload.created).toBe(true);
    expect(calls.get(body.email)).toBe(2);
  });

  it('stores a 4xx decided by the handler: the handler is not run again', async () => {
    const body = customerBody({ email: `refused.${newIdempotencyKey()}@example.com` });
    const key = newIdempotencyKey();
    const first = await post(body, key);
    expect(first.status).toBe(400);
    expectSameAnswer(await post(body, key), first);
    expect(calls.get(body.email)).toBe(1);
  });

  it('answers 409 E_IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After while the first request runs', async () => {
    gate = new Promise<void>((resolve) => (release = resolve));
    inHandler = new Promise<void>((resolve) => (entered = resolve));
    const body = customerBody({ email: `waits.${newIdempotencyKey()}@example.com` });
    const key = newIdempotencyKey();
    const first = post(body, key);
    await inHandler;

    const during = await post(body, key);
    expect(during.status).toBe(409);
    expect(during.json).toMatchObject({ payload: null, error: { code: 'E_IDEMPOTENCY_KEY_IN_PROGRESS' } });
    expect(during.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(during.headers.get('idempotent-replayed')).toBeNull();
    // Another body under the same key is a reuse, running or not.
    expect((await post(customerBody(), key)).json.error.code).toBe('E_IDEMPOTENCY_KEY_REUSED');

    release();
    const original = await first;
    expect(original.status).toBe(200);
    expectSameAnswer(await post(body, key), original);
    expect(calls.get(body.email)).toBe(1);
  });
});
