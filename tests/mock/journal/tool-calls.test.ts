/**
 * Requests a tool of the mock sends itself (the console's reads and controls, marked `X-Mock-Tool: console`) are
 * journaled as such, and kept apart on request: `tool=none` lists what the partner's app sent, `tool=console` the
 * console's own, in the list and the stream alike. Only the known values mark a request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream } from '../support/event-stream-reader.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

const requestIds = async (query: string): Promise<{ requestId: string; tool?: string }[]> =>
  (await mock.call(`/_mock/requests?limit=100${query}`, { key: sandboxKey })).json.payload.data;

describe("the console's own calls in the journal", () => {
  it('are marked, and listed apart or together as asked', async () => {
    const own = await mock.call('/v1/partner/customers', { headers: { 'x-mock-tool': 'console' } });
    const apps = await mock.call('/v1/partner/customers');
    const unknown = await mock.call('/v1/partner/customers', { headers: { 'x-mock-tool': 'something-else' } });
    const [ownId, appId, unknownId] = [own, apps, unknown].map((answer) => answer.headers.get('x-request-id'));

    const all = await requestIds('');
    expect(all.find((entry) => entry.requestId === ownId)?.tool).toBe('console');
    expect(all.find((entry) => entry.requestId === appId)).not.toHaveProperty('tool');
    expect(all.find((entry) => entry.requestId === unknownId)).not.toHaveProperty('tool');
    const partners = (await requestIds('&tool=none')).map((entry) => entry.requestId);
    expect(partners).toEqual(expect.arrayContaining([appId, unknownId]));
    expect(partners).not.toContain(ownId);
    expect((await requestIds('&tool=console')).map((entry) => entry.requestId)).toEqual([ownId]);
    expect((await mock.call('/_mock/requests?tool=grader')).status).toBe(400);
  });

  it('are left out of a stream that asks for the others', async () => {
    const stream = await readEventStream(`${mock.url}/_mock/requests/stream`, { query: '?tool=none', headers: { authorization: sandboxKey } });
    await mock.call('/v1/partner/customers', { headers: { 'x-mock-tool': 'console' } });
    const apps = await mock.call('/v1/partner/customers');
    const [event] = await stream.waitFor(1);
    expect(JSON.parse(event?.data ?? '{}').requestId).toBe(apps.headers.get('x-request-id'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.events).toHaveLength(1);
    stream.close();
  });
});

describe("the console's own calls in recorded traffic", () => {
  it('are left out of the journal exported as traffic', async () => {
    const own = await mock.call('/v1/partner/customers?limit=7', { headers: { 'x-mock-tool': 'console' } });
    const apps = await mock.call('/v1/partner/customers?limit=8');
    const exported = (await mock.call('/_mock/requests/export', { key: sandboxKey })).json as { exchanges: { request: { query: string | null } }[] };
    const queries = exported.exchanges.map((exchange) => JSON.stringify(exchange.request.query));
    expect(queries.some((query) => query.includes('limit=8'))).toBe(true);
    expect(queries.some((query) => query.includes('limit=7'))).toBe(false);
    expect(own.status).toBe(apps.status);
  });
});
