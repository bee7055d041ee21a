/**
 * The Idempotency-Key rules of the creates (see *Idempotency*): replay with `Idempotent-Replayed: true` and the
 * same body (a request of its own, with its own x-request-id), reuse with another body refused, the in-flight
 * request answered 409 with Retry-After, 4xx outcomes stored too (a body that is not JSON included), keys of up
 * to 255 characters scoped per operation, missing or malformed keys and 401s refused without being stored, a
 * replay creating nothing and sending no webhook, and concurrent requests with one key creating one resource.
 * 429 and 5xx leaving the key free need the mock's fault injection: they are in faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PartnerApiError } from '../client/index.ts';
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
  simulation,
  sleep,
  target,
  unknownId,
} from './support/fixtures.ts';
import { rawRequest, recordSkip } from './support/observe.ts';
import { deliveriesContaining, eventsOfCompany } from './support/webhooks.ts';

describe('createCustomer with an Idempotency-Key', () => {
  it("replays the original response for the same key and body: same status and body, Idempotent-Replayed: true, the retry's own x-request-id", async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    const first = await api.createCustomer(body, { idempotencyKey: key, requestId: `${key}-original` });
    const replay = await api.createCustomer(body, { idempotencyKey: key, requestId: `${key}-retry` });
    expect(first.meta.idempotentReplayed).toBe(false);
    expect(replay.meta.idempotentReplayed).toBe(true);
    expect(replay.meta.status).toBe(first.meta.status);
    // A replay is a request of its own: its x-request-id is the one it was sent with, not the original's.
    expect(first.meta.response.headers.get('x-request-id')).toBe(`${key}-original`);
    expect(replay.meta.response.headers.get('x-request-id')).toBe(`${key}-retry`);
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
    // Neither a replay nor processed now: the conflict does not declare Idempotent-Replayed, and carries none.
    expect(error.response.headers.get('idempotent-replayed')).toBeNull();
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

  it('stores the answer to a body that is not JSON, and takes other bytes under its key for another body', async () => {
    const key = newIdempotencyKey();
    const send = (body: string) =>
      rawRequest({ method: 'POST', path: '/v1/partner/customers', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body });
    const first = await send('{"email":');
    expect([first.status, first.errorCode]).toEqual([400, 'E_MALFORMED_JSON']);
    const replay = await send('{"email":');
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.status).toBe(first.status);
    expect(replay.json).toEqual(first.json);
    // A body that is not JSON has no canonical form to compare: any other bytes are another body.
    expect((await send('{"email": ')).errorCode).toBe('E_IDEMPOTENCY_KEY_REUSED');
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

  it('takes a key of 255 visible ASCII characters, and replays with it', async () => {
    // Unique per run (a sandbox keeps keys 24 hours), then the two ends of the visible ASCII range up to the limit.
    const key = `${newIdempotencyKey()}~${'~!'.repeat(128)}`.slice(0, 255);
    expect(key).toHaveLength(255);
    const body = customerRequest();
    const first = await api.createCustomer(body, { idempotencyKey: key });
    expect(first.meta.status).toBe(200);
    expect((await api.createCustomer(body, { idempotencyKey: key })).meta.idempotentReplayed).toBe(true);
  });

  it('stores nothing for a request refused 401: the same key then creates', async () => {
    // Keys are scoped to a partner account, and a request without a valid key has none to store its key under.
    const key = newIdempotencyKey();
    const body = customerRequest();
    const anonymous = partnerClient({ authorization: null, retry: { maxAttempts: 1 } });
    expect((await apiError(anonymous.createCustomer(body, { idempotencyKey: key }))).status).toBe(401);
    const { meta } = await api.createCustomer(body, { idempotencyKey: key });
    expect(meta.status).toBe(200);
    expect(meta.idempotentReplayed).toBe(false);
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
    // The body is the original's, so its requestId names the original request; the header names this one.
    expect(replay.requestId).toBe(first.requestId);
    expect(replay.response.headers.get('x-request-id')).not.toBe(first.requestId);
  });

  it('a replay after the formation went on is the original answer: no second company, no webhook sent again', async () => {
    const customer = await newCustomer();
    const key = newIdempotencyKey();
    const body = llcRequest(customer.serviceCustomerId);
    const original = await api.createCompany(body, { idempotencyKey: key });
    const companyId = original.payload.serviceCompanyId;
    await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted'));
    // The whole formation: submitted, completed, ein.issued and three document.ready.
    const before = target.webhook ? await eventsOfCompany(companyId, (types) => types.length >= 6) : undefined;

    const replay = await api.createCompany(body, { idempotencyKey: key });
    expect(original.meta.idempotentReplayed).toBe(false);
    expect(replay.meta.idempotentReplayed).toBe(true);
    expect(replay.meta.status).toBe(original.meta.status);
    expect(replay.payload).toEqual(original.payload);
    expect(replay.payload.status).toBe('PENDING');
    const { payload: companies } = await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId });
    expect(companies.data.map((company) => company.serviceCompanyId)).toEqual([companyId]);

    if (!before) {
      recordSkip('a createCompany replay sends no webhook again', 'no receiver: CONTRACT_WEBHOOK_URL and CONTRACT_WEBHOOK_SECRET are not set');
      return;
    }
    expect(before.events).toHaveLength(6);
    // Time for a delivery the replay would have caused to arrive (the suite's mock delivers within milliseconds).
    await sleep(1_000);
    const after = await deliveriesContaining(companyId);
    expect(after).toHaveLength(6);
    expect(after.map((delivery) => delivery.headers['webhook-id'])).toEqual(before.deliveries.map((delivery) => delivery.headers['webhook-id']));
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
      expect(concurrent.response.headers.get('idempotent-replayed')).toBeNull();
      // Another body under the same key is a reuse, whether its first request is still running or not.
      const reused = await apiError(apiNoRetry.createCustomer(customerRequest(), { idempotencyKey: key }));
      expect([reused.status, reused.code]).toEqual([409, 'E_IDEMPOTENCY_KEY_REUSED']);

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

describe('200 concurrent createCustomer with one key and one body', () => {
  it('create exactly one customer, and every answer is the original, a replay or 409 E_IDEMPOTENCY_KEY_IN_PROGRESS', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    // No retries: each answer is seen as it came. Against a sandbox the suite's pace spreads them under its rate limit.
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, () => apiNoRetry.createCustomer(body, { idempotencyKey: key })));
    const kinds = outcomes.map((outcome) => {
      if (outcome.status === 'fulfilled') {
        const { status, idempotentReplayed } = outcome.value.meta;
        if (status === 200 && idempotentReplayed === false) return 'original';
        if (status === 200 && idempotentReplayed === true) return 'replay';
        return `unexpected ${status} with Idempotent-Replayed ${String(idempotentReplayed)}`;
      }
      const reason: unknown = outcome.reason;
      if (reason instanceof PartnerApiError && reason.status === 409 && reason.code === 'E_IDEMPOTENCY_KEY_IN_PROGRESS') return 'in-progress';
      return `unexpected ${String(reason)}`;
    });
    expect(kinds.filter((kind) => kind.startsWith('unexpected'))).toEqual([]);
    expect(kinds.filter((kind) => kind === 'original')).toHaveLength(1);
    const created = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value.payload.serviceCustomerId] : []));
    expect(new Set(created).size).toBe(1);
    expect((await api.listCustomers({ email: body.email })).payload.data).toHaveLength(1);
  });
});
