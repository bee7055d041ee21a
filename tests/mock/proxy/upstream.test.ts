/**
 * The mock as a proxy (`--upstream`): a request is checked against the contract and forwarded with the caller's key;
 * the upstream's answer comes back as it was, checked too, with what breaks the contract named in a header and in the
 * journal; an upstream that cannot be reached or does not answer in time is the proxy's own 502 or 504, in the API's
 * envelope.
 */
import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyViolationsReport } from '../../../contract-tests/support/proxy-report.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { journalOf } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import { listen } from '../support/upstream-server.ts';

/** The proxy's settings for an upstream: as `--upstream URL` gives them, with these overridden. */
function upstreamOf(url: string, overrides: Partial<{ timeoutMs: number; fallback: boolean; requests: 'refuse' | 'forward' }> = {}) {
  return { url, timeoutMs: 5_000, fallback: false, requests: 'refuse' as const, ...overrides };
}


describe('a proxy to a server that keeps the contract (another mock)', () => {
  let upstream: TestMock;
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await startTestMock();
    proxy = await startTestMock({ upstream: upstreamOf(upstream.url, { timeoutMs: 5_000, fallback: false }) });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('forwards with the caller’s key and answers what came back: the state lives upstream', async () => {
    const body = customerBody();
    const created = await proxy.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey(), headers: { 'x-request-id': 'req-through-proxy' } });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-request-id')).toBe('req-through-proxy');
    expect(created.headers.get('x-mock-contract-violations')).toBeNull();
    const upstreamSees = await upstream.call(`/v1/partner/customers/${created.json.payload.serviceCustomerId as string}`);
    expect(upstreamSees.json.payload.email).toBe(body.email);
    const [entry] = (await journalOf(proxy)).filter((found) => found.requestId === 'req-through-proxy');
    expect(entry?.upstream).toEqual({ url: upstream.url, outcome: 'answered', status: 200, durationMs: expect.any(Number) });
    expect(entry?.contractViolations).toBeUndefined();
  });

  it('forwards a request the contract refuses when told to, naming its violations on the answer and in the journal', async () => {
    const forwarding = await startTestMock({ upstream: upstreamOf(upstream.url, { requests: 'forward' }) });
    try {
      const answer = await forwarding.call('/v1/partner/customers', { body: { ...customerBody(), email: 'not an email' }, idempotencyKey: newIdempotencyKey(), headers: { 'x-request-id': 'req-forwarded-anyway' } });
      // The upstream's own refusal, passed through.
      expect(answer.status).toBe(400);
      expect(answer.headers.get('x-mock-request-violations')).toMatch(/^1: body \/email: /);
      expect((await journalOf(upstream)).map((entry) => entry.requestId)).toContain('req-forwarded-anyway');
      const [entry] = (await journalOf(forwarding)).filter((found) => found.requestId === 'req-forwarded-anyway');
      expect(entry?.requestViolations).toEqual([expect.stringMatching(/^body \/email: /)]);
      expect(entry?.upstream).toMatchObject({ outcome: 'answered', status: 400 });
    } finally {
      await forwarding.close();
    }
  });

  it('forwards to its upstream only, whatever host a request target names', async () => {
    const { port } = new URL(proxy.url);
    const answer = await new Promise<number>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(`GET http://elsewhere.example/v1/partner/reference/countries?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${sandboxKey}\r\nx-request-id: req-absolute-form\r\nConnection: close\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1])));
      socket.on('error', reject);
    });
    expect(answer).toBe(200);
    expect((await journalOf(upstream)).map((entry) => entry.requestId)).toContain('req-absolute-form');
  });

  it("keeps its own marks to itself: the console's mark (X-Mock-Tool) is the proxy's, not the upstream's", async () => {
    await proxy.call('/v1/partner/customers', { headers: { 'x-request-id': 'req-console-through-proxy', 'x-mock-tool': 'console' } });
    const find = async (on: TestMock) => (await journalOf(on)).find((entry) => entry.requestId === 'req-console-through-proxy');
    expect((await find(proxy))?.tool).toBe('console');
    const upstreamEntry = await find(upstream);
    expect(upstreamEntry).toBeDefined();
    expect(upstreamEntry?.tool).toBeUndefined();
  });

  it('refuses a request the contract refuses, as the mock would, without forwarding it', async () => {
    const refused = await proxy.call('/v1/partner/customers?limit=0', { headers: { 'x-request-id': 'req-refused-by-proxy' } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('E_VALIDATION_FAILED');
    expect(refused.json.error.details).toEqual([expect.objectContaining({ field: '/limit' })]);
    expect((await journalOf(upstream)).map((entry) => entry.requestId)).not.toContain('req-refused-by-proxy');
  });

  it("forwards a create with a key even when the contract refuses it: its refusal is stored under the key, upstream", async () => {
    const key = newIdempotencyKey();
    const first = await proxy.call('/v1/partner/customers', { rawBody: '{"email":', idempotencyKey: key, headers: { 'x-request-id': 'req-malformed-create' } });
    expect(first.status).toBe(400);
    expect(first.json.error.code).toBe('E_MALFORMED_JSON');
    expect(first.headers.get('x-mock-request-violations')).toMatch(/^1: body: not valid JSON/);
    expect((await journalOf(upstream)).map((entry) => entry.requestId)).toContain('req-malformed-create');
    // The same key with another body: what the upstream stored for it says so.
    const again = await proxy.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: key });
    expect([again.status, again.json.error?.code]).toEqual([409, 'E_IDEMPOTENCY_KEY_REUSED']);
  });
});

describe('a proxy to a server that breaks the contract', () => {
  let wrong: { server: Server; url: string };
  let proxy: TestMock;
  beforeAll(async () => {
    wrong = await listen((request, response) => {
      // A page without its required `nextCursor`, and a customer without `email`; all else as the contract says.
      const body = JSON.stringify({ payload: { data: [{ serviceCustomerId: 'cus_0d5ZkH1mVwq8P3xR7tYc2N4b', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR', phoneNumber: null, createdAt: '2026-11-22T10:15:30Z', created: true, companies: [] }], hasMore: false }, error: {} });
      const rateLimit = { 'ratelimit-limit': '25', 'ratelimit-remaining': '24', 'ratelimit-reset': '1', 'ratelimit-policy': '25;w=1;burst=50' };
      response.writeHead(200, { ...rateLimit, 'content-type': 'application/json', 'x-request-id': String(request.headers['x-request-id']) });
      response.end(body);
    });
    proxy = await startTestMock({ upstream: upstreamOf(wrong.url, { timeoutMs: 5_000, fallback: false }) });
  });
  afterAll(async () => {
    await proxy?.close();
    wrong?.server.close();
  });

  it('passes the answer through as it came, naming each violation in a header and in the journal', async () => {
    const answer = await proxy.call('/v1/partner/customers', { headers: { 'x-request-id': 'req-wrong-upstream' } });
    expect(answer.status).toBe(200);
    expect(answer.json.payload.data[0].firstName).toBe('Ada');
    const named = answer.headers.get('x-mock-contract-violations') ?? '';
    expect(named).toMatch(/^2: /);
    expect(named).toContain("body/payload: must have required property 'nextCursor'");
    expect(named).toContain("body/payload/data/0: must have required property 'email'");
    const [entry] = (await journalOf(proxy)).filter((found) => found.requestId === 'req-wrong-upstream');
    expect(entry?.status).toBe(200);
    expect(entry?.contractViolations).toHaveLength(2);
    expect(entry?.contractViolations).toEqual(named.slice(3).split(' | '));
  });
});

describe('the report of a run through a proxy', () => {
  it('counts each violation per operation and side, with an example, and is nothing for a mock that is not a proxy', async () => {
    const wrongAgain = await listen((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': '25', 'ratelimit-remaining': '24', 'ratelimit-reset': '1', 'ratelimit-policy': '25;w=1;burst=50' });
      response.end(JSON.stringify({ payload: { data: [], hasMore: false }, error: {} }));
    });
    const proxy = await startTestMock({ upstream: upstreamOf(wrongAgain.url, { requests: 'forward' }) });
    try {
      await proxy.call('/v1/partner/customers');
      await proxy.call('/v1/partner/customers');
      await proxy.call('/v1/partner/customers?limit=0');
      const report = (await proxyViolationsReport(proxy.url)) ?? '';
      expect(report).toContain(`upstream ${wrongAgain.url}`);
      expect(report).toContain("| listCustomers | response | 3 | body/payload: must have required property 'nextCursor' |");
      expect(report).toMatch(/\| listCustomers \| request \| 1 \| query \/limit: /);
      expect(await proxyViolationsReport(proxy.url, { since: new Date(Date.now() + 60_000).toISOString() })).toContain('none');
      const plain = await startTestMock();
      expect(await proxyViolationsReport(plain.url)).toBeUndefined();
      await plain.close();
    } finally {
      await proxy.close();
      wrongAgain.server.close();
    }
  });
});

describe('a proxy whose upstream fails', () => {
  it('answers 502 E_BAD_GATEWAY in the envelope when the upstream cannot be reached', async () => {
    const gone = await listen(() => undefined);
    gone.server.close();
    const proxy = await startTestMock({ upstream: upstreamOf(gone.url, { timeoutMs: 5_000, fallback: false }) });
    try {
      const answer = await proxy.call('/v1/partner/customers');
      expect(answer.status).toBe(502);
      expect(answer.json.error).toMatchObject({ code: 'E_BAD_GATEWAY', message: expect.stringContaining('could not be reached') });
      const [entry] = (await journalOf(proxy)).filter((found) => found.requestId === answer.headers.get('x-request-id'));
      expect(entry?.upstream).toMatchObject({ outcome: 'unreachable' });
    } finally {
      await proxy.close();
    }
  });

  it('answers 504 in the envelope when the upstream does not answer in time, instead of hanging', async () => {
    const hung = await listen(() => undefined);
    const proxy = await startTestMock({ upstream: upstreamOf(hung.url, { timeoutMs: 300, fallback: false }) });
    try {
      const answer = await proxy.call('/v1/partner/customers');
      expect(answer.status).toBe(504);
      expect(answer.json.error).toMatchObject({ code: 'E_SERVICE_UNAVAILABLE', message: expect.stringContaining('did not send its whole answer within 300 ms') });
    } finally {
      await proxy.close();
      hung.server.closeAllConnections();
      hung.server.close();
    }
  });
});

describe('a proxy with --upstream-fallback, in front of a half-built upstream', () => {
  let upstream: TestMock;
  let halfBuilt: { server: Server; url: string };
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await startTestMock();
    // Has the customers' routes (those of a real mock behind it), and nothing else: its own plain 404.
    halfBuilt = await listen((request, response) => {
      if (!request.url?.startsWith('/v1/partner/customers')) {
        response.writeHead(404, { 'content-type': 'text/plain' });
        return void response.end('Not Found');
      }
      const forwarded = createConnection(upstream, request, response);
      request.pipe(forwarded);
    });
    proxy = await startTestMock({ upstream: upstreamOf(halfBuilt.url, { timeoutMs: 5_000, fallback: true }) });
  });
  afterAll(async () => {
    await proxy?.close();
    halfBuilt?.server.close();
    await upstream?.close();
  });

  it('answers from the mock where the upstream lacks the operation, and says so', async () => {
    const answer = await proxy.call('/v1/partner/reference/countries', { headers: { 'x-request-id': 'req-fallback' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-mock-fallback')).toBe('upstream answered 404');
    expect(answer.json.payload.data.length).toBeGreaterThan(0);
    const [entry] = (await journalOf(proxy)).filter((found) => found.requestId === 'req-fallback');
    expect(entry?.upstream).toMatchObject({ outcome: 'answered', status: 404, fallback: true });
  });

  it("passes through the upstream's own 404 for a resource it does not have", async () => {
    const answer = await proxy.call('/v1/partner/customers/cus_0d5ZkH1mVwq8P3xR7tYc2N4b');
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe('E_NOT_FOUND');
    expect(answer.headers.get('x-mock-fallback')).toBeNull();
  });

  it('answers from the mock when the upstream is gone', async () => {
    const gone = await listen(() => undefined);
    gone.server.close();
    const alone = await startTestMock({ upstream: upstreamOf(gone.url, { timeoutMs: 5_000, fallback: true }) });
    try {
      const created = await alone.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() });
      expect(created.status).toBe(200);
      expect(created.headers.get('x-mock-fallback')).toBe('upstream unreachable');
      expect(created.headers.get('idempotent-replayed')).toBe('false');
    } finally {
      await alone.close();
    }
  });
});

/** Forwards one request to a mock, as a thin reverse proxy would. */
function createConnection(target: TestMock, request: IncomingMessage, response: ServerResponse) {
  const { port } = new URL(target.url);
  return httpRequest({ host: '127.0.0.1', port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
}

