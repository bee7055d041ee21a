/** One JSON log line per request, carrying the request id the caller sees. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

const requestLines = (requestId: string) => mock.logs.filter((line) => line.requestId === requestId && 'ms' in line);

describe('request logging', () => {
  it('writes exactly one line per request, with requestId, status, ms and operationId', async () => {
    const calls = [
      { id: 'log-states', path: '/v1/partner/reference/states', status: 200, operationId: 'listStates' },
      { id: 'log-limit', path: '/v1/partner/customers?limit=0', status: 400, operationId: 'listCustomers' },
      { id: 'log-customer', path: '/v1/partner/customers/cus_000000000000000000000000', status: 404, operationId: 'getCustomer' },
      { id: 'log-unknown', path: '/v1/partner/nowhere', status: 404, operationId: null },
    ];
    for (const call of calls) {
      const response = await mock.call(call.path, { headers: { 'x-request-id': call.id } });
      expect(response.status).toBe(call.status);
    }
    for (const call of calls) {
      const lines = requestLines(call.id);
      expect(lines, call.id).toHaveLength(1);
      expect(lines[0]).toMatchObject({ requestId: call.id, status: call.status, operationId: call.operationId });
      expect(typeof lines[0]?.ms).toBe('number');
      expect(lines[0]?.ms as number).toBeGreaterThanOrEqual(0);
      expect(typeof lines[0]?.msg).toBe('string');
    }
    expect(requestLines('log-limit')[0]).toMatchObject({ code: 'E_VALIDATION_FAILED', level: 30 });
  });

  it("echoes the caller's x-request-id in the header, the error and the log line", async () => {
    const response = await mock.call('/v1/partner/customers', { key: null, headers: { 'x-request-id': 'partner-trace-42' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('partner-trace-42');
    expect(response.json.error.requestId).toBe('partner-trace-42');
    expect(requestLines('partner-trace-42')).toEqual([expect.objectContaining({ status: 401, code: 'E_AUTH_MISSING' })]);
  });

  it('generates an id when none is sent, and logs that one', async () => {
    const response = await mock.call('/v1/partner/reference/states');
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^req_[A-Za-z0-9_-]+$/);
    expect(requestLines(id as string)).toHaveLength(1);
    const other = (await mock.call('/v1/partner/reference/states')).headers.get('x-request-id');
    expect(other).not.toBe(id);
  });

  it('marks a replay in its line', async () => {
    const key = newIdempotencyKey();
    const body = customerBody();
    await mock.call('/v1/partner/customers', { body, idempotencyKey: key, headers: { 'x-request-id': 'log-original' } });
    await mock.call('/v1/partner/customers', { body, idempotencyKey: key, headers: { 'x-request-id': 'log-replay' } });
    expect(requestLines('log-original')[0]?.replayed).toBeUndefined();
    expect(requestLines('log-replay')).toEqual([expect.objectContaining({ status: 200, operationId: 'createCustomer', replayed: true })]);
  });

  it('logs admin requests as it logs API requests: one line each, with requestId, status and operationId, and nothing whole of a key', async () => {
    const health = await mock.call('/_mock/health', { key: null, headers: { 'x-request-id': 'log-admin-health' } });
    expect(health.status).toBe(200);
    const refused = await mock.call('/_mock/faults', { body: { operationId: 'noSuchOperation', status: 503 }, headers: { 'x-request-id': 'log-admin-refused' } });
    expect(refused.status).toBe(400);
    const unknown = await mock.call('/_mock/nowhere', { key: null, headers: { 'x-request-id': 'log-admin-unknown' } });
    expect(unknown.status).toBe(404);
    expect(requestLines('log-admin-health')).toEqual([expect.objectContaining({ status: 200, operationId: 'getHealth', msg: 'GET /_mock/health 200', level: 30 })]);
    expect(requestLines('log-admin-refused')).toEqual([expect.objectContaining({ status: 400, operationId: 'armFault', code: 'E_VALIDATION_FAILED' })]);
    expect(requestLines('log-admin-unknown')).toEqual([expect.objectContaining({ status: 404, operationId: null, code: 'E_NOT_FOUND' })]);
    expect(JSON.stringify(requestLines('log-admin-refused'))).not.toContain(sandboxKey);
    // Logged, not journaled: the journal is what admin requests read.
    const journal = await mock.call('/_mock/requests?limit=1000', { key: null });
    expect(journal.json.payload.data.filter((entry: { path: string }) => entry.path.startsWith('/_mock/'))).toEqual([]);
  });

  it('writes parseable JSON only', () => {
    expect(mock.logs.length).toBeGreaterThan(0);
    for (const line of mock.logs) expect(typeof line.level).toBe('number');
  });
});
