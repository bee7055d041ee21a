/**
 * Every answer the proxy passes on reaches its client as it was, whatever text its headers carry: what the mock adds
 * (the violations it names, from the contract, the request and the upstream) or passes through (the upstream's own
 * headers) is written with characters a header may carry, escaped rather than dropped, and the journal keeps what the
 * client got. A header value that Node refused (a character past Latin-1, such as the `…` of "… and 2 more") used
 * to turn the answer into `500 OK` with requestId `unknown`, journaled as the 200 it was meant to be.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAdminClient } from '../../../contract-tests/support/mock-admin.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { journalOf } from '../support/journal-check.ts';
import { rawRequest } from '../support/http-call.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import { listen } from '../support/upstream-server.ts';

/** Tab, space and visible ASCII: what every header value the mock writes is made of. */
const headerText = /^[\t\x20-\x7E]*$/;

const rateLimit = { 'ratelimit-limit': '25', 'ratelimit-remaining': '24', 'ratelimit-reset': '1', 'ratelimit-policy': '25;w=1;burst=50' };

/** A customer as the contract has it, without its required `email`. */
function customerWithoutEmail(index: number) {
  return { serviceCustomerId: `cus_0d5ZkH1mVwq8P3xR7tYc2N${String(index).padStart(2, '0')}`, firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR', phoneNumber: null, createdAt: '2026-11-22T10:15:30Z', created: true, companies: [] };
}

/** The answer as the client's own socket reads it: status line, reason phrase, headers, body. */
async function ask(baseUrl: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const headers = { authorization: sandboxKey, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  const answer = await rawRequest(baseUrl, options.method ?? 'GET', path, headers, options.body);
  return { ...answer, body: answer.body.toString('utf8') };
}

/** The journal's whole entry for a request id: the answer's headers as kept. */
async function journaledAnswer(mock: TestMock, requestId: string) {
  const [listed] = (await journalOf(mock)).filter((entry) => entry.requestId === requestId);
  if (!listed) throw new Error(`no journal entry for ${requestId}`);
  const { data } = await mockAdminClient(mock.url).GET('/_mock/requests/{entryId}', { params: { path: { entryId: listed.id } } });
  return { listed, response: data?.payload.response };
}


describe('a proxy whose upstream breaks the contract many times in one answer', () => {
  let upstream: { server: Server; url: string };
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await listen((request, response) => {
      // Seven customers without `email`: more violations than a line names, so the list ends "… and 2 more".
      const body = JSON.stringify({ payload: { data: [0, 1, 2, 3, 4, 5, 6].map(customerWithoutEmail), hasMore: false, nextCursor: null }, error: {} });
      // UTF-8 in a header of the upstream's own (bytes past ASCII), and a URL with a space and a character past Latin-1.
      response.writeHead(200, { ...rateLimit, 'content-type': 'application/json', 'x-request-id': String(request.headers['x-request-id']), 'x-upstream-note': Buffer.from('clé ключ', 'utf8').toString('latin1') });
      response.end(body);
    });
    proxy = await startTestMock({ upstream: { url: upstream.url, timeoutMs: 5_000, fallback: false, requests: 'forward' } });
  });
  afterAll(async () => {
    await proxy?.close();
    upstream?.server.close();
  });

  it('passes the answer through with its status, the violations named in characters a header may carry', async () => {
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-many-violations' } });
    expect([answer.status, answer.reason]).toEqual([200, 'OK']);
    expect(answer.headers['x-request-id']).toBe('req-many-violations');
    expect(JSON.parse(answer.body).payload.data).toHaveLength(7);
    const named = String(answer.headers['x-mock-contract-violations']);
    expect(named).toMatch(headerText);
    expect(named).toMatch(/^6: /);
    // The `…` (U+2026) as the percent-escapes of its UTF-8 bytes.
    expect(named).toContain('body: %E2%80%A6 and 2 more');
    const { listed, response } = await journaledAnswer(proxy, 'req-many-violations');
    expect(listed.status).toBe(200);
    expect(listed.contractViolations).toContain('body: … and 2 more');
    expect(response?.headers['x-mock-contract-violations']).toBe(named);
  });

  it("escapes the upstream's own header bytes past ASCII as they came, as the percent-escapes of those bytes", async () => {
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-upstream-utf8' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-upstream-note']).toBe('cl%C3%A9 %D0%BA%D0%BB%D1%8E%D1%87');
    expect(decodeURIComponent(String(answer.headers['x-upstream-note']))).toBe('clé ключ');
    const { response } = await journaledAnswer(proxy, 'req-upstream-utf8');
    expect(response?.headers['x-upstream-note']).toBe(answer.headers['x-upstream-note']);
  });

  it('forwards a query parameter named past Latin-1, naming it escaped in x-mock-request-violations', async () => {
    const answer = await ask(proxy.url, '/v1/partner/customers?%D0%BA=1', { headers: { 'x-request-id': 'req-cyrillic-query' } });
    expect([answer.status, answer.reason]).toEqual([200, 'OK']);
    const named = String(answer.headers['x-mock-request-violations']);
    expect(named).toMatch(headerText);
    expect(named).toContain('%D0%BA');
    const { listed, response } = await journaledAnswer(proxy, 'req-cyrillic-query');
    expect(listed.status).toBe(200);
    expect(listed.requestViolations?.join(' ')).toContain('к');
    expect(response?.headers['x-mock-request-violations']).toBe(named);
  });
});

describe('a proxy forwarding a body whose key is past Latin-1', () => {
  let upstream: TestMock;
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await startTestMock();
    proxy = await startTestMock({ upstream: { url: upstream.url, timeoutMs: 5_000, fallback: false, requests: 'forward' } });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("passes the upstream's refusal through, the key named escaped", async () => {
    const body = JSON.stringify({ ...customerBody(), ключ: 1 });
    const answer = await ask(proxy.url, '/v1/partner/customers', { method: 'POST', body, headers: { 'x-request-id': 'req-cyrillic-key', 'idempotency-key': newIdempotencyKey() } });
    // The upstream's own 400, passed through.
    expect([answer.status, answer.reason]).toEqual([400, 'Bad Request']);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'E_VALIDATION_FAILED', requestId: 'req-cyrillic-key' });
    const named = String(answer.headers['x-mock-request-violations']);
    expect(named).toMatch(headerText);
    expect(named).toContain('%D0%BA%D0%BB%D1%8E%D1%87');
    const { listed, response } = await journaledAnswer(proxy, 'req-cyrillic-key');
    expect(listed.status).toBe(400);
    expect(response?.headers['x-mock-request-violations']).toBe(named);
  });

  it('cuts the violations header by its written length, so that a client reading 16 KiB of headers still reads the answer', async () => {
    // Each key 3,600 characters once escaped: the five, whole, would take 18,000.
    const keys = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`${n}${'ключ'.repeat(150)}`, n]));
    const answer = await ask(proxy.url, '/v1/partner/customers', { method: 'POST', body: JSON.stringify({ ...customerBody(), ...keys }), headers: { 'x-request-id': 'req-long-keys', 'idempotency-key': newIdempotencyKey() } });
    expect(answer.status).toBe(400);
    const named = String(answer.headers['x-mock-request-violations']);
    expect(named).toMatch(headerText);
    expect(named.length).toBeLessThanOrEqual(4000);
    expect(named).toMatch(/%E2%80%A6$/);
  });
});

describe('a proxy whose upstream answers a page of 200,000 broken items', () => {
  let upstream: { server: Server; url: string };
  let proxy: TestMock;
  beforeAll(async () => {
    // About 600 KB: far past the page's 100 items, and every item missing every required property.
    const body = JSON.stringify({ payload: { data: Array.from({ length: 200_000 }, () => ({})), hasMore: false, nextCursor: null }, error: {} });
    upstream = await listen((request, response) => {
      response.writeHead(200, { ...rateLimit, 'content-type': 'application/json', 'x-request-id': String(request.headers['x-request-id']) });
      response.end(body);
    });
    proxy = await startTestMock({ upstream: { url: upstream.url, timeoutMs: 10_000, fallback: false, requests: 'refuse' } });
  });
  afterAll(async () => {
    await proxy?.close();
    upstream?.server.close();
  });

  it('passes it through with the page\'s own problem named first, checking one item past the limit', async () => {
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-huge-page' } });
    expect(answer.status).toBe(200);
    const { listed } = await journaledAnswer(proxy, 'req-huge-page');
    const violations = listed.contractViolations ?? [];
    expect(violations.join('\n')).toMatch(/body\/payload\/data: must NOT have more than 100 items/);
    // The items past the 101st are part of that one problem: none of them is named, nor counted.
    expect(violations.join('\n')).not.toMatch(/data\/101\//);
    expect(violations.at(-1)).toMatch(/^body: … and \d+ more$/);
  });
});

describe('a proxy whose upstream answers what HTTP does not allow, or several cookies', () => {
  let upstream: import('node:net').Server;
  let upstreamUrl: string;
  let proxy: TestMock;
  /** What the upstream answers next: a status line and headers of its own, raw, and a JSON body. */
  let next = { status: '999 Whatever', headers: [] as string[] };
  beforeAll(async () => {
    const { createServer } = await import('node:net');
    upstream = createServer((socket) => {
      socket.once('data', (chunk: Buffer) => {
        const requestId = /x-request-id: (\S+)/i.exec(chunk.toString('latin1'))?.[1] ?? 'req_none';
        const body = JSON.stringify({ payload: { data: [], hasMore: false, nextCursor: null }, error: {} });
        const head = [`HTTP/1.1 ${next.status}`, 'content-type: application/json', `x-request-id: ${requestId}`, ...Object.entries(rateLimit).map(([name, value]) => `${name}: ${value}`), ...next.headers, `content-length: ${Buffer.byteLength(body)}`, 'connection: close'];
        socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', () => resolve()));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
    proxy = await startTestMock({ upstream: { url: upstreamUrl, timeoutMs: 5_000, fallback: false, requests: 'refuse' } });
  });
  afterAll(async () => {
    await proxy?.close();
    upstream?.close();
  });

  it('answers 502 naming a status no answer may have, and journals what its own contract allows', async () => {
    next = { status: '999 Whatever', headers: [] };
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-status-999' } });
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'E_BAD_GATEWAY', message: expect.stringContaining('status 999') });
    const { listed } = await journaledAnswer(proxy, 'req-status-999');
    expect(listed.upstream).toMatchObject({ outcome: 'malformed' });
    expect(listed.upstream).not.toHaveProperty('status');
    // The journal's list, the console's Requests view, stays readable.
    expect((await proxy.call('/_mock/requests?limit=10')).status).toBe(200);
  });

  it('passes every Set-Cookie on as a header of its own, and journals them', async () => {
    next = { status: '200 OK', headers: ['set-cookie: a=1; Path=/', 'set-cookie: b=2', 'set-cookie: c=3; HttpOnly'] };
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-three-cookies' } });
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2', 'c=3; HttpOnly']);
    // A cookie is a credential: the journal keeps that there was one, not what it was.
    const { response } = await journaledAnswer(proxy, 'req-three-cookies');
    expect(response?.headers['set-cookie']).toBe('[masked]');
  });

  it('passes on a header whatever its name, __proto__ included', async () => {
    next = { status: '200 OK', headers: ['__proto__: one', 'constructor: two', 'x-a!b: three'] };
    const answer = await ask(proxy.url, '/v1/partner/customers', { headers: { 'x-request-id': 'req-odd-names' } });
    expect(answer.status).toBe(200);
    // Node's parsed headers leave `__proto__` out; the lines as they came keep it.
    const lines = answer.rawHeaders.flatMap((value, index, all) => (index % 2 === 0 ? [`${value.toLowerCase()}: ${all[index + 1]}`] : []));
    expect(lines).toEqual(expect.arrayContaining(['__proto__: one', 'constructor: two', 'x-a!b: three']));
    const { response } = await journaledAnswer(proxy, 'req-odd-names');
    expect(Object.getOwnPropertyDescriptor(response?.headers ?? {}, '__proto__')?.value).toBe('one');
  });
});
