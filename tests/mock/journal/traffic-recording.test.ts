/**
 * Traffic recorded as it is served (`--record-traffic FILE`): a traffic document the admin contract describes, each
 * body whole up to the contract's body limit (where the journal cuts at 16 KiB), a whole document after every
 * write, as a mock and as a proxy (the upstream's answers marked so), within the document's bounds, and never a key.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../../contract-model/document.ts';
import { schemaCompilerOf } from '../../../contract-model/schema-compiler.ts';
import { contractFacts } from '../../../generated/contract-facts.ts';
import type { components } from '../../../generated/mock-admin/openapi.js';
import { adminContractPath } from '../../../mock/admin/admin-api.ts';
import { trafficBounds } from '../../../mock/journal/traffic-document.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

type TrafficRecording = components['schemas']['TrafficRecording'];
const isTrafficRecording = schemaCompilerOf(await loadContract(adminContractPath)).component('TrafficRecording');

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'traffic-recording-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function recorded(path: string): Promise<{ text: string; document: TrafficRecording }> {
  const text = await readFile(path, 'utf8');
  const document = JSON.parse(text) as TrafficRecording;
  expect(isTrafficRecording(document), JSON.stringify(isTrafficRecording.errors)).toBe(true);
  return { text, document };
}

describe('a mock recording its traffic', () => {
  let mock: TestMock;
  let path: string;
  const longName = 'x'.repeat(40_000);
  beforeAll(async () => {
    path = join(folder, 'mock.json');
    mock = await startTestMock({ recordTraffic: path });
  });
  afterAll(() => mock?.close());

  it('starts with an empty document, and is a whole document after each write', async () => {
    expect((await recorded(path)).document).toMatchObject({ recordedBy: { mode: 'mock', from: 'recording' }, exchanges: [], omitted: 0 });
    await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    await mock.close();
    const { document } = await recorded(path);
    expect(document.exchanges.map(({ request, answer }) => [request.operationId, answer?.status])).toEqual([['createCustomer', 200]]);
    mock = await startTestMock({ recordTraffic: join(folder, 'mock-2.json') });
    path = join(folder, 'mock-2.json');
  });

  it('keeps a body whole where the journal cuts it, and one over the limit by its size only', async () => {
    await mock.call('/v1/partner/customers', { rawBody: JSON.stringify({ ...customerBody(), firstName: longName }), idempotencyKey: newIdempotencyKey() });
    await mock.call('/v1/partner/customers', { rawBody: `"${'y'.repeat(contractFacts.limits.requestBodyMaxBytes)}"`, idempotencyKey: newIdempotencyKey() });
    await mock.call('/v1/partner/customers?limit=3', { headers: { 'x-note': sandboxKey } });
    await mock.close();
    const { text, document } = await recorded(path);
    const [long, tooLarge, list] = document.exchanges;
    expect(long!.request.body).toMatchObject({ truncated: false });
    expect(JSON.parse(long!.request.body!.text!).firstName).toBe(longName);
    expect(long!.answer!.status).toBe(400);
    expect(tooLarge!.answer!.status).toBe(413);
    expect(tooLarge!.request.body).toEqual({ bytes: contractFacts.limits.requestBodyMaxBytes + 2, text: null, truncated: true });
    expect(list!.request).toMatchObject({ query: 'limit=3', headers: {} });
    expect(text).not.toContain(sandboxKey);
  });

  it('refuses to start on a file that exists', async () => {
    const taken = join(folder, 'taken.json');
    await writeFile(taken, 'mine');
    await expect(startTestMock({ recordTraffic: taken })).rejects.toThrow(/--record-traffic .*exists already/);
    expect(await readFile(taken, 'utf8')).toBe('mine');
  });
});

describe('a proxy recording its traffic', () => {
  it("marks the upstream's answers, and its own refusals as the mock's", async () => {
    const upstream = await startTestMock();
    const path = join(folder, 'proxy.json');
    const proxy = await startTestMock({ upstream: { url: upstream.url }, recordTraffic: path });
    try {
      await proxy.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
      await proxy.call('/v1/partner/customers?limit=0');
    } finally {
      await proxy.close();
      await upstream.close();
    }
    const { document } = await recorded(path);
    expect(document.recordedBy).toMatchObject({ mode: 'proxy', upstream: upstream.url });
    expect(document.exchanges.map(({ answer, answeredBy }) => [answer?.status, answeredBy])).toEqual([[200, 'upstream'], [400, 'mock']]);
  });
});

describe("a traffic document's bounds", () => {
  it('takes exchanges while they fit, and counts those it leaves out', () => {
    const bounds = trafficBounds(100, { maxExchanges: 2, maxBytes: 10_000 });
    expect([bounds.take(10), bounds.take(10), bounds.take(10)]).toEqual([true, true, false]);
    const bytes = trafficBounds(100, { maxExchanges: 10, maxBytes: 1_000 });
    expect([bytes.take(500), bytes.take(500)]).toEqual([true, false]);
    expect([bytes.kept, bytes.omitted]).toEqual([1, 1]);
  });
});
