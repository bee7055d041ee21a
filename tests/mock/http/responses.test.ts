/** Every response is checked against the contract: a violation becomes a 500 and is journaled, unless switched off. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../../generated/mock-admin/openapi.js';

type JournalEntry = components['schemas']['RequestJournalEntry'];
import type { Handlers } from '../../../mock/pipeline/handler.ts';
import { closeCheckingJournal, journalOf } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

const brokenPage = { data: [{ code: 'XX' }], hasMore: false, nextCursor: null };
// Each breaks the contract on purpose, which the handlers' types forbid: hence the casts.
const handlers: Partial<Handlers> = {
  // A state without its name and type: the UsState schema requires both.
  listStates: () => ({ status: 200, payload: brokenPage }) as never,
  // A status the operation does not declare.
  listCountries: () => ({ status: 201, payload: { data: [], hasMore: false, nextCursor: null } }) as never,
  // JSON operation answered with a file.
  listNaicsCodes: () => ({ status: 200, file: new TextEncoder().encode('code,title'), contentType: 'text/csv' }) as never,
};

let mock: TestMock;
const expected5xx: string[] = [];

beforeAll(async () => {
  mock = await startTestMock({}, { handlers });
});
afterAll(() => closeCheckingJournal(mock, { expected5xx }));

async function settings(body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${mock.url}/_mock/settings`, body === undefined ? {} : { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

async function journaled(requestId: string): Promise<JournalEntry> {
  const entry = (await journalOf(mock)).find((found) => found.requestId === requestId);
  expect(entry, `no journal entry ${requestId}`).toBeDefined();
  return entry as JournalEntry;
}

async function callExpecting500(path: string, requestId: string) {
  expected5xx.push(requestId);
  return mock.call(path, { headers: { 'x-request-id': requestId } });
}

describe('a response that breaks the contract', () => {
  it('is replaced by 500 E_INTERNAL, and journaled with its contractViolations', async () => {
    const response = await callExpecting500('/v1/partner/reference/states', 'broken-body-1');
    expect(response.status).toBe(500);
    expect(response.json).toMatchObject({ payload: null, error: { code: 'E_INTERNAL', requestId: 'broken-body-1' } });
    expect(response.headers.get('x-request-id')).toBe('broken-body-1');

    const entry = await journaled('broken-body-1');
    expect(entry).toMatchObject({ status: 500, operationId: 'listStates', errorCode: 'E_INTERNAL' });
    expect(entry.contractViolations?.length).toBeGreaterThan(0);
    expect(entry.contractViolations?.join('\n')).toMatch(/data\/0/);

    const logged = mock.logs.find((line) => line.requestId === 'broken-body-1' && Array.isArray(line.problems));
    expect(logged).toMatchObject({ level: 50, operationId: 'listStates' });
  });

  it('includes an undeclared status', async () => {
    const response = await callExpecting500('/v1/partner/reference/countries', 'broken-status-1');
    expect(response.status).toBe(500);
    expect((await journaled('broken-status-1')).contractViolations?.join('\n')).toContain('status 201');
  });

  it('includes an undeclared content type', async () => {
    const response = await callExpecting500('/v1/partner/reference/naics-codes', 'broken-type-1');
    expect(response.status).toBe(500);
    expect((await journaled('broken-type-1')).contractViolations?.join('\n')).toContain('text/csv');
  });

  it('goes out as it is once validation is switched off at run time, and is checked again once it is back on', async () => {
    expect(await settings()).toEqual({ status: 200, json: { payload: { validateResponses: true }, error: {} } });
    expect(await settings({ validateResponses: false })).toEqual({ status: 200, json: { payload: { validateResponses: false }, error: {} } });
    try {
      const response = await mock.call('/v1/partner/reference/states', { headers: { 'x-request-id': 'unchecked-1' } });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ payload: brokenPage, error: {} });
      expect((await journaled('unchecked-1')).contractViolations).toBeUndefined();
    } finally {
      expect(await settings({ validateResponses: true })).toEqual({ status: 200, json: { payload: { validateResponses: true }, error: {} } });
    }
    expect((await callExpecting500('/v1/partner/reference/states', 'broken-body-2')).status).toBe(500);
  });

  it('leaves valid answers alone', async () => {
    const response = await mock.call('/v1/partner/customers');
    expect(response.status).toBe(200);
    expect((await journalOf(mock)).filter((entry) => entry.operationId === 'listCustomers' && entry.contractViolations)).toEqual([]);
  });
});

describe('PUT /_mock/settings', () => {
  it('refuses anything but a boolean validateResponses', async () => {
    expect((await settings({ validateResponses: 'off' })).status).toBe(400);
    expect((await settings({})).status).toBe(400);
    expect((await settings()).json.payload).toEqual({ validateResponses: true });
  });
});
