/**
 * Forced answers asked for by the request (`Prefer: code=…, example=…`, as with Prism), a mock-only feature: every
 * documented answer of every operation can be forced, each checked against the contract as any answer is; what the
 * contract does not document is refused, naming what it does; a forced answer changes nothing and is never stored
 * for its Idempotency-Key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContractSync } from '../../../contract-model/document.ts';
import { listOperations } from '../../../contract-model/operations.ts';
import { documentedAnswers } from '../../../contract-model/documented-answers.ts';
import { readPrefer } from '../../../mock/forced-answers/prefer-header.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

const contract = loadContractSync();
const operations = listOperations(contract).filter((operation) => operation.pathTemplate.startsWith('/'));

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

/** A path of the operation, each parameter given a value of its own name. */
const pathOf = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => `${name}-from-the-request`);

const cases = operations.flatMap((operation) => documentedAnswers(contract, operation).answers.map((answer) => ({ operation, ...answer, label: `${operation.operationId} ${answer.status} ${answer.example}` })));

describe('Prefer: code=…, example=…', () => {
  it('has documented answers to force for every operation', () => {
    for (const operation of operations) expect(cases.some((entry) => entry.operation === operation), operation.operationId).toBe(true);
  });

  it.each(cases)('$label: answers that example, with this request id, checked against the contract', async ({ operation, status, example, value }) => {
    const result = await mock.call(pathOf(operation.pathTemplate), {
      method: operation.method,
      headers: { prefer: `code=${status}, example=${example}` },
      ...(operation.requestBody ? { rawBody: '{}' } : {}),
      ...(operation.idempotent ? { idempotencyKey: newIdempotencyKey() } : {}),
    });
    expect(result.status, JSON.stringify(result.json)).toBe(status);
    const documented = value as { payload: unknown; error: { code?: string } };
    if (documented.error.code) {
      expect(result.json.error).toEqual({ ...documented.error, requestId: result.headers.get('x-request-id') });
    } else {
      expect(Object.keys(result.json.payload as object).sort()).toEqual(Object.keys(documented.payload as object).sort());
    }
    // Every header a real answer of this example carries: those the response requires, and those it sends with
    // the example's error code (x-sent-with-error-codes).
    const response = operation.responses.get(String(status));
    const carried = (response?.headers ?? []).filter((header) => header.required || (documented.error.code !== undefined && header.sentWithErrorCodes?.includes(documented.error.code)));
    for (const header of carried) expect(result.headers.get(header.name), `${header.name} on ${status} ${example}`).not.toBeNull();
    expect(result.headers.get('idempotent-replayed'), 'a forced answer is never a replay').toBeNull();
  });

  it('sends Retry-After with a forced in-progress 409, as the real one does, and not with a reused key', async () => {
    const forced = async (example: string) =>
      mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey(), headers: { prefer: `code=409, example=${example}` } });
    const inProgress = await forced('idempotencyKeyInProgress');
    expect(inProgress.json.error.code).toBe('E_IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(inProgress.headers.get('retry-after')).toMatch(/^\d+$/);
    const reused = await forced('idempotencyKeyReused');
    expect(reused.json.error.code).toBe('E_IDEMPOTENCY_KEY_REUSED');
    expect(reused.headers.get('retry-after')).toBeNull();
  });

  it('puts ids the request names in place of the example’s', async () => {
    const customerId = 'cus_TheOneTheRequestNamesXYZ';
    const result = await mock.call(`/v1/partner/customers/${customerId}`, { headers: { prefer: 'code=200' } });
    expect(result.json.payload.serviceCustomerId).toBe(customerId);
  });

  it('refuses a status or an example the operation does not document, naming those it does', async () => {
    const status = await mock.call('/v1/partner/customers', { headers: { prefer: 'code=418' } });
    expect(status.status).toBe(400);
    expect(status.json.error.details).toEqual([expect.objectContaining({ in: 'header', field: '/Prefer', code: 'E_NOT_ALLOWED_VALUE' })]);
    expect(status.json.error.details[0].message).toMatch(/code=418 .* listCustomers documents: 200 \(customerPage\), .*401 \(authMissing, authInvalid\)/);
    const example = await mock.call('/v1/partner/customers', { headers: { prefer: 'code=200, example=noSuchExample' } });
    expect(example.status).toBe(400);
    expect(example.json.error.details[0].message).toMatch(/code=200, example=noSuchExample is not among/);
    const malformed = await mock.call('/v1/partner/customers', { headers: { prefer: 'code=abc' } });
    expect(malformed.json.error.details[0].message).toMatch(/three digits/);
  });

  it('leaves a request with other preferences alone', async () => {
    const result = await mock.call('/v1/partner/customers', { headers: { prefer: 'return=minimal, respond-async' } });
    expect(result.status).toBe(200);
    expect(result.json.payload.data).toBeInstanceOf(Array);
  });

  it('changes nothing and is never stored for its key: the same key without Prefer then runs', async () => {
    const key = newIdempotencyKey();
    const body = customerBody({ email: `forced-${key}@example.com` });
    const forced = await mock.call('/v1/partner/customers', { body, idempotencyKey: key, headers: { prefer: 'code=200' } });
    expect(forced.status).toBe(200);
    expect(forced.headers.get('idempotent-replayed')).toBeNull();
    const journaled = (await journalOf(mock)).find((entry) => entry.requestId === forced.headers.get('x-request-id'));
    expect(journaled?.forced).toEqual({ status: 200, example: expect.any(String) });
    const listed = await mock.call(`/v1/partner/customers?email=${encodeURIComponent(body.email)}`);
    expect(listed.json.payload.data).toEqual([]);
    const real = await mock.call('/v1/partner/customers', { body, idempotencyKey: key });
    expect(real.status).toBe(200);
    expect(real.json.payload.email).toBe(body.email);
    expect(real.headers.get('idempotent-replayed')).toBe('false');
  });
});

describe('reading Prefer', () => {
  it.each([
    ['code=409', { kind: 'choice', choice: { code: 409 } }],
    ['example=nameTaken', { kind: 'choice', choice: { example: 'nameTaken' } }],
    ['code=400; example="malformedJson"', { kind: 'choice', choice: { code: 400, example: 'malformedJson' } }],
    ['Code=400 , Example=a', { kind: 'choice', choice: { code: 400, example: 'a' } }],
    ['return=minimal', { kind: 'none' }],
    ['dynamic=true', { kind: 'none' }],
    ['code=4000', { kind: 'problem' }],
    ['code=400, code=401', { kind: 'problem' }],
    ['example=', { kind: 'problem' }],
  ])('%s', (header, expected) => {
    expect(readPrefer(header)).toMatchObject(expected);
  });
});
