/**
 * What the proxy takes from its upstream is bounded: at most `--upstream-max-body` of an answer's body (by default
 * the largest document the contract allows), then it hangs up and answers `502 E_BAD_GATEWAY` naming the cause; the
 * whole answer, head and body, within `--upstream-timeout`; and never a header the upstream's `Connection` names
 * (RFC 9110, section 7.6.1), nor one the client's names on the way up. An upstream that never stops sending used to
 * be read whole into memory, a gigabyte in 15 seconds.
 */
import type { IncomingHttpHeaders, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContractSync } from '../../../contract-model/document.ts';
import { contractFacts } from '../../../generated/contract-facts.ts';
import { parseConfig } from '../../../mock/config/config.ts';
import { rawRequest, sandboxKey } from '../support/http-call.ts';
import { startEndlessUpstream, type EndlessUpstream } from '../support/endless-upstream.ts';
import { journalOf } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { listen } from '../support/upstream-server.ts';

const mib = 1024 * 1024;
/** What a socket pair may hold between the upstream's writes and the proxy's reads: the kernel's buffers, both sides. */
const inFlight = 16 * mib;

describe('a proxy in front of an upstream that never stops sending', () => {
  let upstream: EndlessUpstream;
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await startEndlessUpstream();
    // As `--upstream URL` sets it (the bound is the contract's), but a timeout short enough that a proxy that reads
    // without a bound fails the test before it has read gigabytes.
    proxy = await startTestMock({ upstream: { url: upstream.url, timeoutMs: 10_000 } });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('reads at most the largest answer the contract allows, by default: its largest document', () => {
    const parsed = parseConfig(['--upstream', upstream.url], {});
    const largestDocument = (loadContractSync().components as { schemas: Record<string, { properties: Record<string, { maximum?: number }> }> }).schemas.Document?.properties.sizeBytes?.maximum;
    expect(largestDocument).toBeGreaterThan(0);
    expect(parsed.help === false && parsed.config.upstream?.maxBodyBytes).toBe(largestDocument);
  });

  it('answers each of four requests at once 502 E_BAD_GATEWAY naming the bound, and hangs up on the upstream', async () => {
    const ids = ['req-endless-1', 'req-endless-2', 'req-endless-3', 'req-endless-4'];
    const answers = await Promise.all(ids.map((id) => proxy.call('/v1/partner/customers', { headers: { 'x-request-id': id } })));
    for (const answer of answers) {
      expect(answer.status).toBe(502);
      expect(answer.json.error).toMatchObject({ code: 'E_BAD_GATEWAY', message: expect.stringContaining(`over ${contractFacts.documentMaxBytes / 1024} KiB (--upstream-max-body)`) });
    }
    expect(upstream.answers).toHaveLength(4);
    // Every connection closed by the proxy (the upstream itself never stops), once about the bound was read.
    await Promise.all(upstream.answers.map((answer) => answer.closed));
    for (const answer of upstream.answers) expect(answer.written).toBeLessThan(contractFacts.documentMaxBytes + inFlight);
    const entries = (await journalOf(proxy)).filter((entry) => ids.includes(entry.requestId));
    expect(entries.map((entry) => [entry.status, entry.errorCode, entry.upstream?.outcome, entry.upstream?.status])).toEqual(ids.map(() => [502, 'E_BAD_GATEWAY', 'too-large', 200]));
  });
});

describe('the bound on what the proxy reads', () => {
  it('is --upstream-max-body when given, and an answer it announces larger is refused unread', async () => {
    const announced = await listen((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * mib) });
      response.write('{"payload":');
      // Then nothing: the proxy must not wait for the two mebibytes it was promised.
    });
    const parsed = parseConfig(['--upstream', announced.url, '--upstream-max-body', '1MiB'], {});
    if (parsed.help) throw new Error('unexpected --help');
    const proxy = await startTestMock({ upstream: parsed.config.upstream });
    try {
      const answer = await proxy.call('/v1/partner/customers');
      expect(answer.status).toBe(502);
      expect(answer.json.error).toMatchObject({ code: 'E_BAD_GATEWAY', message: expect.stringContaining('over 1024 KiB') });
    } finally {
      await proxy.close();
      announced.server.closeAllConnections();
      announced.server.close();
    }
  });

  it('is a failure like the others with --upstream-fallback: the mock answers, and says why', async () => {
    const upstream = await startEndlessUpstream();
    const proxy = await startTestMock({ upstream: { url: upstream.url, maxBodyBytes: 64 * 1024, fallback: true } });
    try {
      const answer = await proxy.call('/v1/partner/reference/countries', { headers: { 'x-request-id': 'req-endless-fallback' } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-mock-fallback')).toBe('upstream too-large');
      await upstream.answers[0]?.closed;
      const [entry] = (await journalOf(proxy)).filter((found) => found.requestId === 'req-endless-fallback');
      expect(entry?.upstream).toMatchObject({ outcome: 'too-large', status: 200, fallback: true });
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });

  it('is refused when it is not a size, or out of range, or given without --upstream', () => {
    expect(() => parseConfig(['--upstream', 'http://127.0.0.1:1', '--upstream-max-body', 'lots'], {})).toThrow('--upstream-max-body must be a size from 64KiB to 1GiB, such as 512KiB or 16MiB; got "lots"');
    expect(() => parseConfig(['--upstream', 'http://127.0.0.1:1', '--upstream-max-body', '1KiB'], {})).toThrow('--upstream-max-body must be a size from 64KiB to 1GiB');
    expect(() => parseConfig(['--upstream-max-body', '1MiB'], {})).toThrow('--upstream-max-body needs --upstream');
    expect(parseConfig(['--upstream', 'http://127.0.0.1:1'], { UPSTREAM_MAX_BODY: '2MiB' })).toMatchObject({ config: { upstream: { maxBodyBytes: 2 * mib } } });
  });
});

describe('a proxy in front of an upstream that sends its body a byte at a time', () => {
  it('answers 504 once --upstream-timeout has passed since it asked, however long the body still goes on', async () => {
    const upstream = await startEndlessUpstream({ trickleMs: 50 });
    const proxy = await startTestMock({ upstream: { url: upstream.url, timeoutMs: 500 } });
    try {
      const answer = await proxy.call('/v1/partner/customers');
      expect(answer.status).toBe(504);
      expect(answer.json.error).toMatchObject({ code: 'E_SERVICE_UNAVAILABLE', message: expect.stringContaining('did not send its whole answer within 500 ms') });
      await upstream.answers[0]?.closed;
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe('headers of one connection', () => {
  let seen: IncomingHttpHeaders | undefined;
  let upstream: { server: Server; url: string };
  let proxy: TestMock;
  beforeAll(async () => {
    upstream = await listen((request, response) => {
      seen = request.headers;
      request.resume();
      const body = JSON.stringify({ payload: { data: [], hasMore: false, nextCursor: null }, error: {} });
      response.writeHead(200, {
        'content-type': 'application/json',
        'ratelimit-limit': '25',
        'ratelimit-remaining': '24',
        'ratelimit-reset': '1',
        'ratelimit-policy': '25;w=1;burst=50',
        connection: 'keep-alive, X-Upstream-Hop',
        'x-upstream-hop': "the connection's own",
        'x-upstream-kept': 'for the client',
      });
      response.end(body);
    });
    proxy = await startTestMock({ upstream: { url: upstream.url } });
  });
  afterAll(async () => {
    await proxy?.close();
    upstream?.server.close();
  });

  it("never reach the client: those the upstream's Connection names are dropped, the others kept", async () => {
    const answer = await proxy.call('/v1/partner/customers');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-upstream-hop')).toBeNull();
    expect(answer.headers.get('x-upstream-kept')).toBe('for the client');
  });

  it("never reach the upstream: those the client's Connection names are dropped", async () => {
    const answer = await rawRequest(proxy.url, 'GET', '/v1/partner/customers', { authorization: sandboxKey, connection: 'keep-alive, x-client-hop', 'x-client-hop': 'mine', 'x-client-kept': 'theirs' });
    expect(answer.status).toBe(200);
    expect(seen?.['x-client-hop']).toBeUndefined();
    expect(seen?.['x-client-kept']).toBe('theirs');
  });
});

