/**
 * A web page of another site cannot drive a developer's local mock: admin requests sent by such a page, or for a
 * host the mock does not answer to (DNS rebinding), are refused, and with --admin-token every admin request must
 * carry the token. Faults armed and journals read with a partner's key are that partner's only. The admin API's
 * contract and docs are served.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAdminClient, readMockJournal } from '../../../contract-tests/support/mock-admin.ts';
import { rawRequest } from '../support/http-call.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { createCustomer, eventually } from '../support/http-fixtures.ts';
import { completedFormation, createEndpoint, otherSandboxKey, portal, sandboxKey } from './support.ts';

let mock: TestMock;
let guarded: TestMock;
const adminToken = 'a-token-for-the-shared-mock';

beforeAll(async () => {
  [mock, guarded] = await Promise.all([startTestMock(), startTestMock({ adminToken, webhookUrl: 'https://hooks.example.com/in?token=s3cret' })]);
});
afterAll(async () => {
  await Promise.all([closeCheckingJournal(mock), closeCheckingJournal(guarded)]);
});

/** A raw request, so that Host and Origin are exactly what a browser or an attacker would send. */
function raw(target: TestMock, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { port } = new URL(target.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body || 'null') }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** A document's bytes as sent, with the encoding asked for. */
async function bytesOf(target: TestMock, path: string, acceptEncoding: string): Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }> {
  const answer = await rawRequest(target.url, 'GET', path, { 'accept-encoding': acceptEncoding });
  return { encoding: answer.headers['content-encoding'], vary: answer.headers.vary, body: answer.body };
}

describe('the admin routes', () => {
  it("refuse a webhook delivery, so that an endpoint at the mock's own admin route resets nothing", async () => {
    const victim = await createCustomer(mock, { key: otherSandboxKey });
    await createEndpoint(mock, sandboxKey, { url: `${mock.url}/_mock/reset` });
    await completedFormation(mock, sandboxKey);
    // Every delivery the formation made went to /_mock/reset, and each was refused there.
    const attempts = await eventually(async () => {
      const { data } = await portal(mock, sandboxKey).GET('/_mock/deliveries');
      const made = data?.payload.attempts ?? [];
      return made.length > 0 && made;
    }, 15_000, 'a delivery to reach /_mock/reset');
    expect(attempts.map((attempt) => attempt.status)).toEqual(attempts.map(() => 403));
    expect((await mock.call(`/v1/partner/customers/${victim.serviceCustomerId}`, { key: otherSandboxKey })).status).toBe(200);
  });

  it("refuse a request sent by another site's page", async () => {
    const host = new URL(mock.url).host;
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'http://localhost:3000' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of crossSite) {
      const refused = await raw(mock, '/_mock/settings', { host, ...headers });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body.error.code).toBe('E_CROSS_SITE_REQUEST');
    }
    expect((await raw(mock, '/_mock/settings', { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('refuse a request for a host the mock does not answer to (DNS rebinding)', async () => {
    const { port } = new URL(mock.url);
    const refused = await raw(mock, '/_mock/faults', { host: `attacker.example:${port}` });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('E_HOST_NOT_ALLOWED');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) expect((await raw(mock, '/_mock/faults', { host })).status, host).toBe(200);
  });

  it('require the admin token when the mock runs with one', async () => {
    expect((await mockAdminClient(guarded.url).GET('/_mock/settings')).error?.error.code).toBe('E_ADMIN_TOKEN_MISSING');
    expect((await mockAdminClient(guarded.url, { adminToken: 'not-the-token-at-all' }).GET('/_mock/settings')).error?.error.code).toBe('E_ADMIN_TOKEN_INVALID');
    expect((await mockAdminClient(guarded.url, { adminToken }).GET('/_mock/settings')).data?.payload).toEqual({ validateResponses: true });
  });

  it('show a webhook URL with its query values masked', async () => {
    const health = await mockAdminClient(guarded.url, { adminToken }).GET('/_mock/health');
    expect(health.data?.payload.webhookEndpoint).toBe('https://hooks.example.com/in?token=***');
    expect(JSON.stringify(guarded.logs)).not.toContain('s3cret');
  });

  it('serve their own contract and its docs', async () => {
    const contract = await mockAdminClient(mock.url).GET('/_mock/openapi.json');
    expect(contract.data).toMatchObject({ openapi: '3.1.0', paths: expect.objectContaining({ '/_mock/webhook-endpoints': expect.any(Object) }) });
    expect((contract.data as { info: { description: string } }).info.description).toMatch(/not part of the Partner Formation API contract/);
    const docs = await fetch(`${mock.url}/_mock/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('compress their docs and contract for a client that accepts it, as /docs is', async () => {
    for (const path of ['/_mock/docs', '/_mock/openapi.json']) {
      const plain = await bytesOf(mock, path, 'identity');
      expect(plain.encoding, path).toBeUndefined();
      for (const [accepted, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
        const sent = await bytesOf(mock, path, accepted);
        expect([sent.encoding, sent.vary], `${path} ${accepted}`).toEqual([accepted, 'accept-encoding']);
        expect(sent.body.byteLength).toBeLessThan(plain.body.byteLength / 3);
        expect(decode(sent.body).equals(plain.body)).toBe(true);
      }
    }
  });
});

describe('with a partner key', () => {
  it("arm a fault for that partner's requests only", async () => {
    const armed = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'listCountries', status: 503, count: 5 } });
    expect(armed.response.status).toBe(201);
    expect(armed.data?.payload.data).toEqual([expect.objectContaining({ operationId: 'listCountries', count: 5, partner: 'dk_test_…aaaa' })]);
    expect((await mock.call('/v1/partner/reference/countries', { key: otherSandboxKey })).status).toBe(200);
    expect((await portal(mock, otherSandboxKey).GET('/_mock/faults')).data?.payload.data).toEqual([]);
    await portal(mock, sandboxKey).DELETE('/_mock/faults');
    expect((await mock.call('/v1/partner/reference/countries')).status).toBe(200);
  });

  it("read that partner's journal only", async () => {
    await mock.call('/v1/partner/reference/states', { headers: { 'x-request-id': 'req_mine_1' } });
    await mock.call('/v1/partner/reference/states', { key: otherSandboxKey, headers: { 'x-request-id': 'req_theirs_1' } });
    const mine = await readMockJournal(mock.url, { apiKey: sandboxKey });
    expect(mine.map((entry) => entry.requestId)).toContain('req_mine_1');
    expect(mine.map((entry) => entry.requestId)).not.toContain('req_theirs_1');
    expect(new Set(mine.map((entry) => entry.partner))).toEqual(new Set(['dk_test_…aaaa']));
  });

  it('refuse a fault on an operation the contract does not have', async () => {
    const refused = await portal(mock, sandboxKey).POST('/_mock/faults', { body: { operationId: 'createUnicorn', status: 500 } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.details).toContainEqual(expect.objectContaining({ field: '/operationId', code: 'E_NOT_ALLOWED_VALUE' }));
  });
});
