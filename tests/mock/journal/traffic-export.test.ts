/**
 * The journal exported as recorded traffic (`GET /_mock/requests/export`): a traffic document the admin contract
 * describes, oldest request first, each exchange with the method, path and query, the headers the API contract
 * documents and the bodies as the journal keeps them, and never a key; with a key, only that partner's requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaCompilerOf } from '../../../contract-model/schema-compiler.ts';
import { loadContract } from '../../../contract-model/document.ts';
import { adminContractPath } from '../../../mock/admin/admin-api.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import type { components } from '../../../generated/mock-admin/openapi.js';
import { trafficDocument } from '../../../mock/journal/traffic-document.ts';
import type { TrafficExchange } from '../../../mock/journal/traffic-exchange.ts';

type TrafficRecording = components['schemas']['TrafficRecording'];
const isTrafficRecording = schemaCompilerOf(await loadContract(adminContractPath)).component('TrafficRecording');

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

async function exported(key?: string): Promise<{ status: number; text: string; document: TrafficRecording }> {
  const answer = await mock.call('/_mock/requests/export', { key: key ?? null });
  const text = new TextDecoder().decode(answer.bytes);
  return { status: answer.status, text, document: answer.json as TrafficRecording };
}

describe('the journal as recorded traffic', () => {
  let customerId: string;
  beforeAll(async () => {
    const created = await mock.call('/v1/partner/customers', { body: customerBody({ phoneNumber: '+447700900123' }), idempotencyKey: newIdempotencyKey(), headers: { 'x-note': `from ${sandboxKey}`, cookie: 'session=1' } });
    customerId = created.json.payload.serviceCustomerId;
    await mock.call(`/v1/partner/customers/${customerId}`);
    await mock.call('/v1/partner/customers?limit=2&email=someone%40example.com');
    await mock.call('/v1/partner/nowhere');
    await mock.call('/v1/partner/customers?limit=1', { key: otherSandboxKey });
  });

  it('is a document of the admin contract, oldest first, with the route of each request and the answer it got', async () => {
    const { status, document } = await exported();
    expect(status).toBe(200);
    expect(isTrafficRecording(document), JSON.stringify(isTrafficRecording.errors)).toBe(true);
    expect(document).toMatchObject({ format: 'partner-formation-traffic/1', recordedBy: { mode: 'mock', from: 'journal', upstream: null }, omitted: 0 });
    expect(document.exchanges.map(({ request, answer }) => [request.operationId, request.method, request.path, request.query, answer?.status])).toEqual([
      ['createCustomer', 'POST', '/v1/partner/customers', '', 200],
      ['getCustomer', 'GET', `/v1/partner/customers/${customerId}`, '', 200],
      ['listCustomers', 'GET', '/v1/partner/customers', 'limit=2&email=someone%40example.com', 200],
      [null, 'GET', '/v1/partner/nowhere', '', 404],
      ['listCustomers', 'GET', '/v1/partner/customers', 'limit=1', 200],
    ]);
    expect(document.exchanges.every((exchange) => exchange.answeredBy === 'mock')).toBe(true);
  });

  it('keeps the headers the contract documents, never the key, a cookie or what it does not document', async () => {
    const { text, document } = await exported();
    const [create] = document.exchanges;
    expect(Object.keys(create!.request.headers).sort()).toEqual(['content-type', 'idempotency-key']);
    expect(create!.answer!.headers).toMatchObject({ 'content-type': 'application/json', 'idempotent-replayed': 'false', 'ratelimit-limit': expect.any(String) });
    expect(create!.answer!.headers).toHaveProperty('x-request-id');
    expect(JSON.parse(create!.request.body!.text!)).toMatchObject({ phoneNumber: '+447700900123' });
    expect(text).not.toContain(sandboxKey);
    expect(text).not.toContain(otherSandboxKey);
    expect(text).not.toContain('session=1');
  });

  it("with a key, holds that partner's requests only", async () => {
    const { document } = await exported(otherSandboxKey);
    expect(document.exchanges.map(({ request }) => `${request.method} ${request.path}?${request.query}`)).toEqual(['GET /v1/partner/customers?limit=1']);
  });

  it('marks a body the journal cut as truncated', async () => {
    await mock.call('/v1/partner/customers', { rawBody: JSON.stringify({ ...customerBody(), firstName: 'x'.repeat(40_000) }), idempotencyKey: newIdempotencyKey() });
    const { document } = await exported();
    const body = document.exchanges.at(-1)!.request.body!;
    expect(body.truncated).toBe(true);
    expect(body.bytes).toBeGreaterThan(40_000);
  });
});

describe('an export of a journal that takes long to encode', () => {
  it('gives the event loop back as it goes, so that other requests are answered meanwhile', async () => {
    // Each body a run of escapes and keys, the dearest text to mask: a thousand take far longer than a slice.
    const text = JSON.stringify({ note: `${'\\'.repeat(2_000)} ${'dk_test_Aa00000000000000000000000001 '.repeat(50)}` });
    const exchange: TrafficExchange = {
      request: { operationId: 'createCustomer', method: 'POST', path: '/v1/partner/customers', query: '', queryTruncated: false, headers: {}, body: { text, bytes: text.length, truncated: false } },
      answer: null,
      answeredBy: 'mock',
    };
    async function* pages() {
      for (let page = 0; page < 10; page += 1) yield { exchanges: Array(100).fill(exchange), omitted: 0 };
    }
    const order: string[] = [];
    setImmediate(() => order.push('another request'));
    const document = trafficDocument({ mode: 'mock', from: 'journal', contractVersion: '1.0.0', upstream: null }, pages()).then((built) => order.push(`document of ${JSON.parse(built.toString('utf8')).exchanges.length}`));
    await document;
    expect(order).toEqual(['another request', 'document of 1000']);
  });
});

describe('exports asked for at once', () => {
  let busy: TestMock;
  beforeAll(async () => {
    busy = await startTestMock();
    const body = JSON.stringify({ ...customerBody(), note: '\\'.repeat(12_000) });
    await Promise.all(Array.from({ length: 20 }, () => busy.call('/v1/partner/customers', { rawBody: body, idempotencyKey: newIdempotencyKey() })));
  });
  afterAll(() => closeCheckingJournal(busy));

  it('are each answered whole, one after another', async () => {
    const answers = await Promise.all(Array.from({ length: 3 }, () => busy.call('/_mock/requests/export', { key: null })));
    expect(answers.map((answer) => [answer.status, (answer.json as TrafficRecording).exchanges.length])).toEqual(Array(3).fill([200, 20]));
  });
});
