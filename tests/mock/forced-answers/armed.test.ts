/**
 * Forced answers armed through the admin API (`/_mock/faults` with `status`, `example` or both): a partner's next
 * calls of an operation answer a documented answer, as its own `Prefer` would have them; other partners are left
 * alone; nothing is stored for the key; the journal marks the answer forced; what the operation does not document
 * is refused when armed, naming what it does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { otherSandboxKey, portal, sandboxKey } from '../portal/support.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

describe('a forced answer armed for a partner', () => {
  it("answers that partner's next call with the documented example, stores nothing for its key, and is journaled as forced", async () => {
    const armed = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'createCustomer', status: 409, example: 'idempotencyKeyReused', count: 1 } });
    expect(armed.response.status).toBe(201);
    expect(armed.data?.payload.data).toEqual([expect.objectContaining({ operationId: 'createCustomer', status: 409, example: 'idempotencyKeyReused', count: 1 })]);

    // Another partner's create runs.
    const theirs = await mock.call('/v1/partner/customers', { key: otherSandboxKey, body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(theirs.status).toBe(200);

    const key = newIdempotencyKey();
    const body = customerBody();
    const forced = await mock.call('/v1/partner/customers', { body, idempotencyKey: key });
    expect(forced.status).toBe(409);
    expect(forced.json.error).toMatchObject({ code: 'E_IDEMPOTENCY_KEY_REUSED', requestId: forced.headers.get('x-request-id') });
    const journaled = (await journalOf(mock)).find((entry) => entry.requestId === forced.headers.get('x-request-id'));
    expect(journaled?.forced).toEqual({ status: 409, example: 'idempotencyKeyReused' });
    const byCode = await portal(mock, sandboxKey).GET('/_mock/requests', { params: { query: { errorCode: 'E_IDEMPOTENCY_KEY_REUSED' } } });
    expect(byCode.data?.payload.data.map((entry) => entry.requestId)).toEqual([forced.headers.get('x-request-id')]);

    // Used up; the same key and body then run, as nothing was stored for them.
    const real = await mock.call('/v1/partner/customers', { body, idempotencyKey: key });
    expect(real.status).toBe(200);
    expect(real.headers.get('idempotent-replayed')).toBe('false');
    expect(real.json.payload.email).toBe(body.email);
  });

  it('takes a status alone (its first example) or an example alone', async () => {
    await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'listCustomers', status: 401 } });
    await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'listCustomers', example: 'rateLimited' } });
    const first = await mock.call('/v1/partner/customers');
    expect([first.status, first.json.error.code]).toEqual([401, 'E_AUTH_MISSING']);
    const second = await mock.call('/v1/partner/customers');
    expect([second.status, second.json.error.code]).toEqual([429, 'E_RATE_LIMITED']);
    expect(second.headers.get('retry-after')).not.toBeNull();
    expect((await mock.call('/v1/partner/customers')).status).toBe(200);
  });

  it('stays armed until disarmed when its count is null, and is disarmed by its id, by its partner only', async () => {
    const armed = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'listCustomers', status: 503, count: null } });
    const fault = armed.data?.payload.data.find((entry) => entry.operationId === 'listCustomers');
    expect(fault).toMatchObject({ id: expect.stringMatching(/^flt_[A-Za-z0-9]{24}$/), status: 503, count: null });
    for (let call = 0; call < 3; call += 1) expect((await mock.call('/v1/partner/customers')).status).toBe(503);
    const id = fault?.id as string;
    const theirs = await portal(mock, otherSandboxKey).DELETE('/_mock/faults/{faultId}', { params: { path: { faultId: id } } });
    expect([theirs.response.status, theirs.error?.error.code]).toEqual([404, 'E_NOT_FOUND']);
    const disarmed = await portal(mock, sandboxKey).DELETE('/_mock/faults/{faultId}', { params: { path: { faultId: id } } });
    expect(disarmed.response.status).toBe(200);
    expect(disarmed.data?.payload.data.map((entry) => entry.id)).not.toContain(id);
    expect((await mock.call('/v1/partner/customers')).status).toBe(200);
    const again = await portal(mock, sandboxKey).DELETE('/_mock/faults/{faultId}', { params: { path: { faultId: id } } });
    expect(again.response.status).toBe(404);
  });

  it('is refused when the operation does not document it, naming what it does', async () => {
    const status = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'createCustomer', status: 418 } });
    expect(status.response.status).toBe(400);
    expect(status.error?.error.details).toEqual([expect.objectContaining({ field: '/status', code: 'E_NOT_ALLOWED_VALUE', message: expect.stringMatching(/code=418 is not among the answers createCustomer documents: 200 \(/) })]);
    const misplaced = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'createCustomer', status: 400, example: 'idempotencyKeyReused' } });
    expect(misplaced.error?.error.details).toEqual([expect.objectContaining({ field: '/example', message: expect.stringMatching(/409 \(idempotencyKeyReused/) })]);
    expect((await portal(mock, sandboxKey).GET('/_mock/faults')).data?.payload.data).toEqual([]);
  });
});
