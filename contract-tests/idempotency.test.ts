/**
 * The Idempotency-Key rules of the creates (see *Idempotency*): replay with `Idempotent-Replayed: true` and the
 * same body, reuse with another body refused, the in-flight request answered 409 with Retry-After, 4xx outcomes
 * stored too, keys scoped per operation, and missing or malformed keys refused without being stored.
 */
import { describe, expect, it } from 'vitest';
import {
  api,
  apiError,
  apiNoRetry,
  armFault,
  customerRequest,
  llcRequest,
  newCustomer,
  newIdempotencyKey,
  partnerClient,
  target,
  unknownId,
} from './support/fixtures.ts';
import { rawRequest, recordSkip } from './support/observe.ts';

describe('createCustomer with an Idempotency-Key', () => {
  it('replays the original response for the same key and body: same status and body, Idempotent-Replayed: true', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    const first = await api.createCustomer(body, { idempotencyKey: key });
    const replay = await api.createCustomer(body, { idempotencyKey: key });
    expect(first.meta.idempotentReplayed).toBe(false);
    expect(replay.meta.idempotentReplayed).toBe(true);
    expect(replay.meta.status).toBe(first.meta.status);
    // `created: true` again: the replay is the original response, not a new lookup.
    expect(replay.payload).toEqual(first.payload);
    expect(replay.payload.created).toBe(true);
  });

  it('fingerprints the canonical JSON: key order and white space do not matter', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    const first = await api.createCustomer(body, { idempotencyKey: key });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(reordered, null, 4),
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((replay.json as { payload: unknown }).payload).toEqual(first.payload);
  });

  it('refuses the same key with another body: 409 E_IDEMPOTENCY_KEY_REUSED, and nothing is created', async () => {
    const key = newIdempotencyKey();
    await api.createCustomer(customerRequest(), { idempotencyKey: key });
    const other = customerRequest();
    const error = await apiError(api.createCustomer(other, { idempotencyKey: key }));
    expect([error.status, error.code]).toEqual([409, 'E_IDEMPOTENCY_KEY_REUSED']);
    const { payload } = await api.listCustomers({ email: other.email });
    expect(payload.data).toEqual([]);
  });

  it('stores a 4xx outcome and replays it; the corrected request needs a fresh key', async () => {
    const key = newIdempotencyKey();
    const invalid = { ...customerRequest(), countryOfResidence: 'ZZZ' };
    const first = await apiError(api.createCustomer(invalid, { idempotencyKey: key }));
    const replay = await apiError(api.createCustomer(invalid, { idempotencyKey: key }));
    expect(first.status).toBe(400);
    expect(replay.status).toBe(400);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.details).toEqual(first.details);
    const corrected = await apiError(api.createCustomer({ ...invalid, countryOfResidence: 'GBR' }, { idempotencyKey: key }));
    expect(corrected.code).toBe('E_IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses a create without Idempotency-Key (E_IDEMPOTENCY_KEY_REQUIRED) or with a malformed one (E_IDEMPOTENCY_KEY_INVALID)', async () => {
    const body = JSON.stringify(customerRequest());
    const missing = await rawRequest({ method: 'POST', path: '/v1/partner/customers', headers: { 'content-type': 'application/json' }, body });
    expect([missing.status, missing.errorCode]).toEqual([400, 'E_IDEMPOTENCY_KEY_REQUIRED']);
    // Too long, not visible ASCII (a space, a Latin-1 letter), and empty.
    for (const key of ['x'.repeat(256), 'has space', '\u00e9t\u00e9', '']) {
      const malformed = await rawRequest({
        method: 'POST',
        path: '/v1/partner/customers',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body,
      });
      expect([malformed.status, malformed.errorCode], `key ${JSON.stringify(key.slice(0, 20))}`).toEqual([400, 'E_IDEMPOTENCY_KEY_INVALID']);
    }
    // Neither outcome was stored: the body goes through with a good key.
    const { meta } = await api.createCustomer(JSON.parse(body) as ReturnType<typeof customerRequest>);
    expect(meta.status).toBe(200);
  });

  it('scopes keys per operation: the same key on createCompany is not a reuse', async () => {
    const key = newIdempotencyKey();
    const customer = (await api.createCustomer(customerRequest(), { idempotencyKey: key })).payload;
    const { meta } = await api.createCompany(llcRequest(customer.serviceCustomerId), { idempotencyKey: key });
    expect(meta.status).toBe(202);
    expect(meta.idempotentReplayed).toBe(false);
  });
});

describe('createCompany with an Idempotency-Key', () => {
  it('replays the accepted formation and refuses the key with another body', async () => {
    const customer = await newCustomer();
    const key = newIdempotencyKey();
    const body = llcRequest(customer.serviceCustomerId);
    const first = await api.createCompany(body, { idempotencyKey: key });
    const replay = await api.createCompany(body, { idempotencyKey: key });
    expect(first.meta.status).toBe(202);
    expect(replay.meta.status).toBe(202);
    expect(replay.meta.idempotentReplayed).toBe(true);
    expect(replay.payload).toEqual(first.payload);
    const { payload } = await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId });
    expect(payload.data).toHaveLength(1);

    const error = await apiError(api.createCompany({ ...body, naicsCode: '541715' }, { idempotencyKey: key }));
    expect([error.status, error.code]).toEqual([409, 'E_IDEMPOTENCY_KEY_REUSED']);
  });

  it('stores a refused formation like a success', async () => {
    const key = newIdempotencyKey();
    const body = llcRequest(unknownId('cus'));
    const first = await apiError(api.createCompany(body, { idempotencyKey: key }));
    const replay = await apiError(api.createCompany(body, { idempotencyKey: key }));
    expect(first.details).toContainEqual(expect.objectContaining({ code: 'E_CUSTOMER_NOT_FOUND' }));
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.details).toEqual(first.details);
  });
});

describe('a create retried while the first is still being processed', () => {
  it.runIf(target.mockAdmin)(
    'answers 409 E_IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After; the client retry then gets the replay',
    async () => {
      const key = newIdempotencyKey();
      const body = customerRequest();
      // The first request is held 1.5 s inside the mock, after its key was taken.
      await armFault({ operationId: 'createCustomer', delayMs: 1_500 });
      const first = apiNoRetry.createCustomer(body, { idempotencyKey: key });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const concurrent = await apiError(apiNoRetry.createCustomer(body, { idempotencyKey: key }));
      expect([concurrent.status, concurrent.code]).toEqual([409, 'E_IDEMPOTENCY_KEY_IN_PROGRESS']);
      expect(concurrent.retryAfter).toEqual(expect.any(Number));

      // The client retries IN_PROGRESS with the same key and body, honouring Retry-After, until the replay.
      const retried = partnerClient().createCustomer(body, { idempotencyKey: key });
      const [original, replay] = await Promise.all([first, retried]);
      expect(original.meta.idempotentReplayed).toBe(false);
      expect(replay.meta.attempts).toBeGreaterThan(1);
      expect(replay.meta.idempotentReplayed).toBe(true);
      expect(replay.payload).toEqual(original.payload);
    },
  );

  it.runIf(!target.mockAdmin)('is provoked with two concurrent creates when the target is slow enough', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    const outcomes = await Promise.allSettled([
      apiNoRetry.createCustomer(body, { idempotencyKey: key }),
      apiNoRetry.createCustomer(body, { idempotencyKey: key }),
    ]);
    const inProgress = outcomes.filter(
      (outcome) => outcome.status === 'rejected' && (outcome.reason as { code?: string }).code === 'E_IDEMPOTENCY_KEY_IN_PROGRESS',
    );
    if (inProgress.length === 0) {
      recordSkip(
        'createCustomer 409 E_IDEMPOTENCY_KEY_IN_PROGRESS',
        'untestable by design here: only a request held inside the target (the mock\'s delayMs fault) is reliably in flight; two concurrent creates both finished',
      );
    }
    const fulfilled = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.payload.serviceCustomerId] : []));
    expect(new Set(fulfilled).size).toBeLessThanOrEqual(1);
    expect(fulfilled.length + inProgress.length).toBe(2);
  });
});
