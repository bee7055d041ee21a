/**
 * The documents served beside the API (reference docs, bundled contract, changelog): GET and HEAD only, anything
 * else the API's 405 with Allow; compressed with Brotli or gzip when the client accepts it.
 */
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleKey } from '../../../mock/served-documents/served-documents.ts';
import { rawRequest } from '../support/http-call.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

/** A raw request, so that no client decompresses or adds Accept-Encoding behind the test's back. */
const raw = (method: string, path: string, headers: Record<string, string> = {}) => rawRequest(mock.url, method, path, headers);

describe.each(['/docs', '/', '/openapi.json', '/CHANGELOG.md'])('%s', (path) => {
  it.each(['DELETE', 'POST', 'PUT'])('refuses %s with 405, Allow and the error envelope', async (method) => {
    const answer = await raw(method, path, { 'x-request-id': 'req-docs-1' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
    expect(answer.headers['x-request-id']).toBe('req-docs-1');
    expect(JSON.parse(answer.body.toString())).toEqual({ payload: null, error: { code: 'E_METHOD_NOT_ALLOWED', message: expect.any(String), requestId: 'req-docs-1' } });
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const [head, get] = [await raw('HEAD', path), await raw('GET', path)];
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });
});

describe('compression', () => {
  it('serves the docs with Brotli or gzip when accepted, the same bytes once decoded, and plain otherwise', async () => {
    const plain = await raw('GET', '/docs');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    const brotli = await raw('GET', '/docs', { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(brotli.body).equals(plain.body)).toBe(true);
    expect(brotli.body.length).toBeLessThan(plain.body.length / 3);
    const gzipped = await raw('GET', '/openapi.json', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzipped.body).toString()).openapi).toBe('3.1.0');
    expect((await raw('GET', '/docs', { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });
});

describe('/openapi.json', () => {
  it("lists the mock itself as the first server, before the contract's own, so that imports call the mock", async () => {
    const served = JSON.parse((await raw('GET', '/openapi.json')).body.toString());
    expect(served.servers[0]).toEqual({ url: mock.url, description: expect.stringContaining('mock') });
    expect(served.servers.slice(1).map((server: { url: string }) => server.url)).toEqual(['https://sandbox.api.partner-formation.example', 'https://api.partner-formation.example']);
  });
});

describe('the docs as the mock serves them', () => {
  it('show request samples that call the mock with a key it takes; the built docs keep the sandbox', async () => {
    const served = (await raw('GET', '/docs')).body.toString();
    const built = readFileSync(new URL('../../../generated/docs/index.html', import.meta.url), 'utf8');
    const sandbox = "curl -X POST 'https://sandbox.api.partner-formation.example/v1/partner/customers'";
    expect(built).toContain(sandbox);
    expect(built).toContain("-H 'Authorization: dk_test_…'");
    expect(served).not.toContain(sandbox);
    expect(served).toContain(`curl -X POST '${mock.url}/v1/partner/customers'`);
    expect(served).not.toContain("curl -X GET 'https://sandbox.api.partner-formation.example");
    expect(served).not.toContain("-H 'Authorization: dk_test_…'");
    expect(served).toContain(`-H 'Authorization: ${sampleKey}'`);
    // The servers the docs list stay the published ones.
    expect(served).toContain('"servers":[{"url":"https://sandbox.api.partner-formation.example"');
  });

  it('give a sample that runs against the mock as copied', async () => {
    const served = (await raw('GET', '/docs')).body.toString();
    const source = /"source":"(curl -X GET '[^"]*\/v1\/partner\/customers'[^"]*)"/.exec(served)?.[1];
    expect(source).toBeDefined();
    const url = /'(http[^']+)'/.exec(JSON.parse(`"${source}"`) as string)?.[1] as string;
    const answer = await fetch(url, { headers: { authorization: sampleKey } });
    expect(answer.status).toBe(200);
  });
});

