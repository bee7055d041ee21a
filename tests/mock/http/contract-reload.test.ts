/**
 * Reading the contract again while the mock runs (`reloadContract`, which `npm run dev` asks for on each save): the
 * new contract is served from the next request on, on the same port, with the store's data, the faults armed and the
 * settings switched kept; requests sent meanwhile are all answered; streams of the services replaced are ended so
 * that their clients come back; a contract that cannot be served is refused, and the one before goes on serving.
 * And the live docs (`--docs live`) that follow it: a page, Redoc's script served by the mock with nothing from a
 * CDN, the contract as the docs show it (samples calling the mock, the Changes page), and events naming its version.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContractPath, type ContractDocument } from '../../../contract-model/document.ts';
import { liveDocsPaths } from '../../../mock/served-documents/live-docs.ts';
import { sampleKey } from '../../../mock/served-documents/served-documents.ts';
import { portal } from '../portal/support.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { rawRequest } from '../support/http-call.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

const original = JSON.parse(readFileSync(defaultContractPath, 'utf8')) as ContractDocument;
let folder: string;
let contractFile: string;
let mock: TestMock;

/** The contract with listCustomers' summary changed. */
function withSummary(summary: string): ContractDocument {
  const contract = structuredClone(original);
  ((contract.paths['/v1/partner/customers'] as Record<string, Record<string, unknown>>).get as Record<string, unknown>).summary = summary;
  return contract;
}
const summaryServed = async () => ((await (await fetch(`${mock.url}/openapi.json`)).json()) as ContractDocument & { paths: Record<string, { get: { summary: string } }> }).paths['/v1/partner/customers']?.get.summary;

/** Opens a stream of server-sent events; resolves with its first event's data and a promise of its end. */
function openEvents(path: string, headers: Record<string, string> = {}): Promise<{ first: string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const sent = request(`${mock.url}${path}`, { headers: { accept: 'text/event-stream', ...headers } }, (answer) => {
      let text = '';
      let ended: () => void = () => undefined;
      const end = new Promise<void>((done) => (ended = done));
      answer.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const data = /(?:^|\n)data: ?([^\n]*)\n\n/.exec(text)?.[1];
        if (data !== undefined) resolve({ first: data, ended: end });
      });
      answer.on('end', ended);
      answer.on('close', ended);
      answer.on('error', ended);
    });
    sent.on('error', reject);
    sent.end();
  });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'contract-reload-'));
  contractFile = join(folder, 'contract.json');
  await writeFile(contractFile, JSON.stringify(original));
  mock = await startTestMock({ contractPath: contractFile, docs: 'live' });
});
afterAll(async () => {
  await mock?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('reloadContract', () => {
  it('serves the contract as it is now from the next request on, keeping the data, the faults armed and the settings', async () => {
    const created = await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
    expect(created.status).toBe(200);
    const armed = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'getCustomer', status: 404, count: 1 } });
    expect(armed.response.status).toBe(201);
    const switched = await portal(mock, sandboxKey).PUT('/_mock/settings', { body: { validateResponses: false } });
    expect(switched.response.status).toBe(200);

    await writeFile(contractFile, JSON.stringify(withSummary('List customers, reloaded')));
    expect(await mock.reloadContract()).toEqual({ operations: expect.any(Number) });
    expect(await summaryServed()).toBe('List customers, reloaded');

    const listed = await mock.call('/v1/partner/customers');
    expect(listed.json.payload.data.map((customer: { serviceCustomerId: string }) => customer.serviceCustomerId)).toEqual([created.json.payload.serviceCustomerId]);
    const faulted = await mock.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId as string}`);
    expect(faulted.status).toBe(404);
    const settings = await portal(mock, sandboxKey).GET('/_mock/settings');
    expect(settings.data?.payload).toMatchObject({ validateResponses: false });
  });

  it('answers every request sent while it reloads, none refused', async () => {
    await writeFile(contractFile, JSON.stringify(withSummary('List customers, under load')));
    const calls = Array.from({ length: 40 }, (_, index) => new Promise((resolve) => setTimeout(resolve, index * 5)).then(() => mock.call('/v1/partner/customers')));
    const [, ...answers] = await Promise.all([mock.reloadContract(), ...calls]);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(await summaryServed()).toBe('List customers, under load');
  });

  it('ends the streams of the services it replaces, so that their clients come back to the new ones', async () => {
    const before = await openEvents(liveDocsPaths.events);
    await writeFile(contractFile, JSON.stringify(withSummary('List customers, streamed')));
    await mock.reloadContract();
    await before.ended;
    const after = await openEvents(liveDocsPaths.events);
    expect(after.first).not.toBe(before.first);
  });

  it('refuses a contract it cannot serve, saying why, and the one before goes on serving', async () => {
    const served = await summaryServed();
    await writeFile(contractFile, '{ "openapi": "3.1.0", "paths": ');
    await expect(mock.reloadContract()).rejects.toThrow(/contract/i);
    const withoutDownloads = structuredClone(original);
    delete withoutDownloads.paths['/v1/partner/companies/{companyId}/documents/{documentId}/content'];
    await writeFile(contractFile, JSON.stringify(withoutDownloads));
    await expect(mock.reloadContract()).rejects.toThrow(/downloadCompanyDocument/);
    expect(await summaryServed()).toBe(served);
    expect((await mock.call('/v1/partner/customers')).status).toBe(200);
  });
});

describe('the live docs', () => {
  it('are a page that loads its script and Redoc from the mock, under a policy that lets nothing else load', async () => {
    const page = await rawRequest(mock.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
    const html = page.body.toString();
    expect(html).toContain(`src="${liveDocsPaths.script}"`);
    expect(html).toContain('href="/_mock/console"');
    const script = (await rawRequest(mock.url, 'GET', liveDocsPaths.script)).body.toString();
    expect(script).toContain(`from '${liveDocsPaths.redoc}'`);
    expect(script).toContain(liveDocsPaths.events);
    const redoc = await rawRequest(mock.url, 'GET', liveDocsPaths.redoc);
    expect(redoc.headers['content-type']).toMatch(/^text\/javascript/);
    expect(redoc.body.toString()).toContain('RedocStandalone');
    expect(redoc.body.toString()).not.toContain('cdn.redoc.ly');
  });

  it('render the contract as the built docs show it: samples calling this mock, the Changes page, the published servers', async () => {
    await writeFile(contractFile, JSON.stringify(withSummary('List customers, documented')));
    await mock.reloadContract();
    const document = JSON.parse((await rawRequest(mock.url, 'GET', liveDocsPaths.definition)).body.toString()) as ContractDocument & { info: { description: string }; servers: { url: string }[] };
    const listCustomers = (document.paths['/v1/partner/customers'] as Record<string, { summary: string; 'x-codeSamples': { source: string }[] }>).get;
    expect(listCustomers?.summary).toBe('List customers, documented');
    expect(listCustomers?.['x-codeSamples'][0]?.source).toContain(`curl -X GET '${mock.url}/v1/partner/customers'`);
    expect(JSON.stringify(document)).toContain(`Authorization: ${sampleKey}`);
    expect(document.info.description).toContain('# Changes');
    expect(document.servers.map((server) => server.url)).toEqual((original.servers as { url: string }[]).map((server) => server.url));
  });

  it('name the version of that document in their events, as its ETag, and answer 304 to a page that holds it', async () => {
    const definition = await rawRequest(mock.url, 'GET', liveDocsPaths.definition);
    const etag = definition.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const events = await openEvents(liveDocsPaths.events);
    expect(events.first).toBe(etag);
    const again = await rawRequest(mock.url, 'GET', liveDocsPaths.definition, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('are not served with --docs built, whose /docs is the page npm run generate built', async () => {
    const built = await startTestMock();
    try {
      expect((await rawRequest(built.url, 'GET', '/docs')).body.toString()).toContain('Partner Formation API');
      expect((await rawRequest(built.url, 'GET', liveDocsPaths.redoc)).status).toBe(404);
      expect((await rawRequest(built.url, 'GET', liveDocsPaths.events)).status).toBe(404);
    } finally {
      await built.close();
    }
  });
});
