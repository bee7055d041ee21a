/**
 * Idempotency as only the mock can show it: a 4xx stays stored once the same body would succeed (the customer it
 * lacked is written straight into the mock's store), replays are journaled with the stored answer's code, and
 * handlers made to throw, to break the contract or to wait (injected through the mock's overrides) show which
 * outcomes are stored and how often a handler runs. The contract's promises on Idempotency-Key (replays, reuse,
 * in flight, 4xx stored, 429 and 5xx not stored, canonical JSON, 255-character keys, scope per operation and per
 * partner, a replay creating nothing and sending no webhook, concurrent creates making one resource) are tested in
 * contract-tests/idempotency.test.ts and contract-tests/faults.test.ts, against the mock and any sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Customer } from '../../../generated/openapi.js';
import { createKeyChecker } from '../../../mock/auth/api-keys.ts';
import { createCustomer as storeCustomer } from '../../../mock/customers/customer-records.ts';
import { validationFailed } from '../../../mock/http/api-error.ts';
import { change, type Handlers } from '../../../mock/pipeline/handler.ts';
import { customerBody, llcBody, newIdempotencyKey, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

function expectSameAnswer(replay: CallResult, original: CallResult): void {
  expect(replay.status).toBe(original.status);
  expect(replay.json).toEqual(original.json);
  expect(original.headers.get('idempotent-replayed')).toBe('false');
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
}

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
