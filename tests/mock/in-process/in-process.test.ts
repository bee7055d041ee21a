/**
 * The mock in process (app/in-process.ts, as the package's createMock runs it) does what the server does wherever
 * that has a meaning without a socket: its links follow the host a request was sent to; the change stream streams,
 * holds a partner to its share of streams until one is cancelled, and ends when the mock closes; the journal marks a
 * tool's own requests and exports as traffic without them; `record-traffic` records what was served to a file.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxStreamsPerScope } from '../../../mock/journal/journal-handlers.ts';
import { createMock, type PartnerFormationMock } from '../../../mock/package/msw.ts';
import { customerBody, llcBody, newIdempotencyKey } from '../support/http-fixtures.ts';

const key = `dk_test_${'I'.repeat(24)}`;
const baseUrl = 'https://api.partner-app.example';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'in-process-'));
});
afterAll(() => rm(folder, { recursive: true, force: true }));

/** A call as the app makes it: to the base URL unless `origin` says where else. */
function call(mock: PartnerFormationMock, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; origin?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: key, ...init.headers };
  if (init.body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() });
  return mock.handle(new Request(`${init.origin ?? mock.baseUrl}${path}`, { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }));
}

const payloadOf = async <T = any>(answer: Response): Promise<T> => ((await answer.json()) as { payload: T }).payload;

describe('the links the mock makes in process', () => {
  let mock: PartnerFormationMock;
  let documentPath: string;
  beforeAll(async () => {
    mock = await createMock({ baseUrl, options: { 'formation-timeline': 'manual' } });
    const customer = await payloadOf(await call(mock, '/v1/partner/customers', { body: customerBody() }));
    const company = await payloadOf(await call(mock, '/v1/partner/companies', { body: llcBody(customer.serviceCustomerId) }));
    const companyPath = `/v1/partner/companies/${company.serviceCompanyId}`;
    expect((await call(mock, `/v1/partner/sandbox/companies/${company.serviceCompanyId}/simulate-formation`, { body: { target: 'COMPLETED' } })).status).toBe(200);
    const documents = await payloadOf(await call(mock, `${companyPath}/documents`));
    documentPath = `${companyPath}/documents/${documents.data[0].documentId}`;
  });
  afterAll(() => mock.close());

  const downloadUrl = async (origin?: string, headers?: Record<string, string>) =>
    (await payloadOf(await call(mock, documentPath, { ...(origin ? { origin } : {}), ...(headers ? { headers } : {}) }))).downloadUrl as string;

  it('are at the base URL, its scheme kept, for a request sent there', async () => {
    expect(await downloadUrl()).toMatch(new RegExp(`^${baseUrl.replace(/\./g, '\\.')}${documentPath}/content\\?`));
  });

  it("are at the host a request was sent to when it is one of the mock's names, as on the server", async () => {
    expect(await downloadUrl('http://localhost:5173')).toMatch(new RegExp(`^http://localhost:5173${documentPath}/content\\?`));
    expect(await downloadUrl('http://127.0.0.1:4010')).toMatch(/^http:\/\/127\.0\.0\.1:4010\//);
    // The Host a request names is the one that counts, as over HTTP.
    expect(await downloadUrl(undefined, { host: 'localhost:4010' })).toMatch(/^http:\/\/localhost:4010\//);
  });

  it('are at the base URL for a host that is none of its names', async () => {
    expect(await downloadUrl('http://shop.partner-app.example')).toMatch(new RegExp(`^${baseUrl.replace(/\./g, '\\.')}/`));
  });

  it("make a relay's URL the same way", async () => {
    const endpoint = await payloadOf(await call(mock, '/_mock/webhook-endpoints', { body: { url: 'https://hooks.partner-app.example/in' } }));
    expect(endpoint.relay.url).toMatch(new RegExp(`^${baseUrl.replace(/\./g, '\\.')}/_mock/relay/`));
  });
});

/** Reads server-sent events from a stream's body, as they come. */
function eventsOf(answer: Response): { next(where: (data: string) => boolean): Promise<string>; ended(): Promise<boolean>; cancel(): Promise<void> } {
  const reader = (answer.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    async next(where) {
      for (;;) {
        const found = [...text.matchAll(/^data: (.*)$/gm)].map((match) => match[1] as string).find(where);
        if (found !== undefined) {
          text = text.slice(text.indexOf(found) + found.length);
          return found;
        }
        const read = await reader.read();
        if (read.done) throw new Error(`the stream ended before the event looked for; it sent: ${text}`);
        text += read.value;
      }
    },
    async ended() {
      for (;;) if ((await reader.read()).done) return true;
    },
    cancel: () => reader.cancel(),
  };
}

describe('the change stream in process', () => {
  it('names what each change touched, as it happens', async () => {
    const mock = await createMock({ baseUrl });
    const changes = await call(mock, '/_mock/changes');
    expect([changes.status, changes.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    const events = eventsOf(changes);
    await events.next((data) => data.includes('"customers"'));
    await call(mock, '/v1/partner/customers', { body: customerBody() });
    expect((JSON.parse(await events.next(() => true)) as { topics: string[] }).topics).toContain('customers');
    await mock.close();
    expect(await events.ended()).toBe(true);
  });

  it('holds a partner to its share of streams, a place given back when one is cancelled', async () => {
    const mock = await createMock({ baseUrl });
    const open = await Promise.all(Array.from({ length: maxStreamsPerScope }, () => call(mock, '/_mock/changes')));
    expect(open.map((answer) => answer.status)).toEqual(open.map(() => 200));
    const refused = await call(mock, '/_mock/changes');
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([409, 'E_STREAM_LIMIT']);
    await (open[0]?.body as ReadableStream).cancel();
    const again = await call(mock, '/_mock/changes');
    expect(again.status).toBe(200);
    await mock.close();
  });
});

describe('the journal in process', () => {
  it("marks a tool's own request, and exports the others as traffic", async () => {
    const mock = await createMock({ baseUrl });
    await call(mock, '/v1/partner/customers', { body: customerBody() });
    await call(mock, '/v1/partner/customers?limit=1', { headers: { 'x-mock-tool': 'console' } });
    const page = await mock.requests({ tool: 'console' }, key);
    expect(page.data.map((entry) => [entry.operationId, entry.tool])).toEqual([['listCustomers', 'console']]);
    const exported = await call(mock, '/_mock/requests/export');
    expect(exported.status).toBe(200);
    const document = (await exported.json()) as { recordedBy: { from: string }; exchanges: { request: { operationId: string }; answer: { status: number } }[] };
    expect(document.recordedBy.from).toBe('journal');
    expect(document.exchanges.map(({ request, answer }) => [request.operationId, answer.status])).toEqual([['createCustomer', 200]]);
    expect(JSON.stringify(document)).not.toContain(key);
    await mock.close();
  });

  it('records the traffic served to a file with record-traffic, written whole when the mock closes', async () => {
    const path = join(folder, 'traffic.json');
    const mock = await createMock({ baseUrl, options: { 'record-traffic': path } });
    await call(mock, '/v1/partner/customers', { body: customerBody() });
    await call(mock, '/v1/partner/customers', { body: { email: 'not an address' } });
    await mock.close();
    const document = JSON.parse(await readFile(path, 'utf8')) as { recordedBy: { mode: string; from: string }; exchanges: { request: { operationId: string }; answer: { status: number } }[] };
    expect(document.recordedBy).toMatchObject({ mode: 'mock', from: 'recording' });
    expect(document.exchanges.map(({ request, answer }) => [request.operationId, answer.status])).toEqual([
      ['createCustomer', 200],
      ['createCustomer', 400],
    ]);
  });
});
