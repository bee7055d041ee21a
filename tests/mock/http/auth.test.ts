/**
 * The mock's own behaviour around API keys: which keys it accepts (any well-formed key of its environment, or only
 * an `--api-keys` list), what it reads where the contract is silent (an empty header, the wording of its messages),
 * that it never logs a key whole, and what `--environment production` changes. The contract's promises on keys
 * (401 E_AUTH_MISSING and E_AUTH_INVALID on every operation, for every malformed or foreign key, nothing created)
 * are tested in contract-tests/auth.test.ts, against the mock and any sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, customerBody, newIdempotencyKey, simulate } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, productionKey, sandboxKey, startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';

const statesPath = '/v1/partner/reference/states?limit=1';

function expectAuthError(response: CallResult, code: 'E_AUTH_MISSING' | 'E_AUTH_INVALID'): void {
  expect(response.status, JSON.stringify(response.json)).toBe(401);
  expect(response.json).toMatchObject({ payload: null, error: { code, requestId: response.headers.get('x-request-id') } });
}

describe('a sandbox mock that accepts any well-formed dk_test_ key', () => {
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startTestMock();
  });
  afterAll(() => closeCheckingJournal(mock));

  it('takes an empty Authorization for a missing one: 401 E_AUTH_MISSING', async () => {
    // The contract's E_AUTH_MISSING is for no Authorization header; an empty one carries no key either.
    expectAuthError(await mock.call(statesPath, { key: '' }), 'E_AUTH_MISSING');
  });

  it('says to drop the prefix when a key is Bearer-prefixed, and only then', async () => {
    // The status and code are the contract's; the message is for humans, and its hint is the mock's own.
    const lower = await mock.call(statesPath, { key: `bearer ${sandboxKey}` });
    expectAuthError(lower, 'E_AUTH_INVALID');
    expect(lower.json.error.message).toMatch(/without the `Bearer` prefix/);
    expect((await mock.call(statesPath, { key: 'dk_test_short' })).json.error.message).not.toMatch(/Bearer/);
  });

  it('accepts any well-formed key of its environment, each as its own partner', async () => {
    expect((await mock.call(statesPath, { key: sandboxKey })).status).toBe(200);
    expect((await mock.call(statesPath, { key: `dk_test_${'Q1'.repeat(32)}` })).status).toBe(200);
  });

  it('never writes a key whole into its logs', async () => {
    const keys = [sandboxKey, otherSandboxKey, productionKey, `dk_test_${'S3cr3t'.repeat(6)}`];
    for (const key of keys) {
      await mock.call(statesPath, { key });
      await mock.call(statesPath, { key: `Bearer ${key}` });
      await mock.call('/v1/partner/customers', { key, body: customerBody(), idempotencyKey: newIdempotencyKey() });
      await mock.call('/v1/partner/customers', { key, body: { nope: true }, idempotencyKey: newIdempotencyKey() });
    }
    expect(mock.logs.length).toBeGreaterThanOrEqual(keys.length * 4);
    const written = mock.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const key of keys) expect(written).not.toContain(key);
    // Nor the secret part on its own.
    expect(written).not.toContain('S3cr3tS3cr3t');

    // The request journal, served over HTTP, names partners by a masked key only.
    const journal = await (await fetch(`${mock.url}/_mock/requests?limit=1000`)).text();
    for (const key of keys) expect(journal).not.toContain(key);
    expect(journal).toContain('dk_test_…aaaa');
  });
});

describe('a mock with a list of accepted keys', () => {
  const accepted = `dk_test_${'K1'.repeat(12)}`;
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startTestMock({ apiKeys: [accepted] });
  });
  afterAll(() => closeCheckingJournal(mock));

  it('accepts a listed key', async () => {
    expect((await mock.call(statesPath, { key: accepted })).status).toBe(200);
    await createCustomer(mock, { key: accepted });
  });

  it('refuses a well-formed key that is not listed with E_AUTH_INVALID', async () => {
    expectAuthError(await mock.call(statesPath, { key: sandboxKey }), 'E_AUTH_INVALID');
    expectAuthError(await mock.call(statesPath, { key: `${accepted}0` }), 'E_AUTH_INVALID');
  });

  it('still tells a missing key apart', async () => {
    expectAuthError(await mock.call(statesPath, { key: null }), 'E_AUTH_MISSING');
  });
});

describe('a production mock', () => {
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startTestMock({ environment: 'production' });
  });
  afterAll(() => closeCheckingJournal(mock));

  it('refuses dk_test_ keys with E_AUTH_INVALID', async () => {
    expectAuthError(await mock.call(statesPath, { key: sandboxKey }), 'E_AUTH_INVALID');
  });

  it('accepts dk_live_ keys', async () => {
    const response = await mock.call(statesPath, { key: productionKey });
    expect(response.status).toBe(200);
    expect(response.json.payload.data).toHaveLength(1);
  });

  it('has no sandbox operations: simulateCompanyFormation is 404 E_NOT_FOUND', async () => {
    const customer = await createCustomer(mock, { key: productionKey });
    expect(customer.created).toBe(true);
    const response = await simulate(mock, 'com_5kHx9QaZ2mTw6RcN8vLp3JyD', { target: 'COMPLETED' }, productionKey);
    expect(response.status, JSON.stringify(response.json)).toBe(404);
    expect(response.json).toMatchObject({ payload: null, error: { code: 'E_NOT_FOUND' } });
    // Not found, whatever the key: the operation does not exist there.
    expect((await simulate(mock, 'com_5kHx9QaZ2mTw6RcN8vLp3JyD', { target: 'NEXT' }, sandboxKey)).status).toBe(404);
  });
});
