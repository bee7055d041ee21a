/**
 * The answers a healthy target never gives on demand — 429, 500, 503 — provoked on every operation that
 * documents them, through the fault injection of the mock the suite started (`/_mock/faults`). Against any
 * other target this file is skipped, and the coverage table marks those pairs untestable there. Also checks
 * what the contract says follows from them: Retry-After, the client's retry, and a 429 or a 5xx leaving the
 * Idempotency-Key free for the retry.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../client/index.ts';
import { contractOperations, documents } from './support/contract.ts';
import { api, apiError, apiNoRetry, armFault, clearFaults, customerRequest, newIdempotencyKey, target } from './support/fixtures.ts';
import { recordSkip } from './support/observe.ts';
import { operationCalls, prepareWorld, type World } from './support/operation-calls.ts';

const faultCodes = { 429: 'E_RATE_LIMITED', 500: 'E_INTERNAL', 503: 'E_SERVICE_UNAVAILABLE' } as const;
type FaultStatus = keyof typeof faultCodes;

const faultPairs = contractOperations.flatMap((operation) =>
  ([429, 500, 503] as const).filter((status) => documents(operation, status)).map((status) => [operation.operationId, status] as const),
);

if (!target.mockAdmin) {
  recordSkip(
    '429/500/503 on every operation, the client retry, and 429 and 5xx leaving the Idempotency-Key free',
    'fault injection (/_mock/faults) exists only on the mock the suite starts itself',
  );
}

describe.runIf(target.mockAdmin)('injected faults', () => {
  let world: World;
  beforeAll(async () => {
    world = await prepareWorld();
  });
  afterEach(clearFaults);

  it.each(faultPairs)('%s answers %i with its error code', async (operationId: OperationId, status: FaultStatus) => {
    await armFault({ operationId, status, count: 1 });
    const error = await apiError(operationCalls[operationId](apiNoRetry, world));
    expect([error.status, error.code]).toEqual([status, faultCodes[status]]);
    if (status !== 500) expect(error.retryAfter).toEqual(expect.any(Number));
  });

  it('the client retries a 503 after Retry-After and gets the answer', async () => {
    await armFault({ operationId: 'listStates', status: 503, count: 1 });
    const started = Date.now();
    const { payload, meta } = await api.listStates({ limit: 5 });
    expect(meta.attempts).toBe(2);
    expect(payload.data).toHaveLength(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a 429 on a create is not stored: the same key and body then create', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    await armFault({ operationId: 'createCustomer', status: 429, count: 1 });
    const error = await apiError(apiNoRetry.createCustomer(body, { idempotencyKey: key }));
    expect(error.status).toBe(429);
    const retried = await apiNoRetry.createCustomer(body, { idempotencyKey: key });
    expect(retried.meta.status).toBe(200);
    expect(retried.meta.idempotentReplayed).toBe(false);
  });

  it('a 5xx on a create is not stored: the same key and body then create', async () => {
    const key = newIdempotencyKey();
    const body = customerRequest();
    await armFault({ operationId: 'createCustomer', status: 500, count: 1 });
    const error = await apiError(apiNoRetry.createCustomer(body, { idempotencyKey: key }));
    expect(error.status).toBe(500);
    const retried = await apiNoRetry.createCustomer(body, { idempotencyKey: key });
    expect(retried.meta.idempotentReplayed).toBe(false);
    expect(retried.payload.created).toBe(true);
  });

  it('the client retries a 500 on a create with the same key, and it is created once', async () => {
    const body = customerRequest();
    await armFault({ operationId: 'createCustomer', status: 500, count: 2 });
    const { payload, meta } = await api.createCustomer(body);
    expect(meta.attempts).toBe(3);
    expect(payload.created).toBe(true);
    expect((await api.listCustomers({ email: body.email })).payload.data).toHaveLength(1);
  });
});
