/**
 * CORS on the API routes, for pages prototyping against a local mock: preflights answered 204 before auth and rate
 * limiting, the request headers the contract defines allowed and the response headers it defines exposed. The
 * admin routes get no grant. `--cors` takes `*` (the default), a list of origins, or `off`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../mock/config/config.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

const page = 'http://localhost:3000';
const preflight = (mock: TestMock, path: string, origin = page, method = 'POST') =>
  fetch(`${mock.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, idempotency-key, x-request-id' },
  });

describe('by default (any origin)', () => {
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startTestMock({ rateLimitPerSecond: 1 });
  });
  afterAll(() => closeCheckingJournal(mock));

  it('answers a preflight 204 before auth and rate limiting, allowing the headers the contract defines', async () => {
    for (let n = 0; n < 5; n += 1) {
      const answer = await preflight(mock, '/v1/partner/customers');
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      const allowed = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-request-id']));
      expect(answer.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
  });

  it('grants and exposes the response headers the contract defines on an actual request', async () => {
    const answer = await fetch(`${mock.url}/v1/partner/reference/states?limit=1`, { headers: { origin: page, authorization: sandboxKey } });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'idempotent-replayed', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']));
  });

  it('grants nothing on the admin routes', async () => {
    const admin = await fetch(`${mock.url}/_mock/health`, { headers: { origin: mock.url } });
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
    const adminPreflight = await preflight(mock, '/_mock/faults', mock.url);
    expect(adminPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with a list of origins', () => {
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startTestMock({ cors: { origins: [page] } });
  });
  afterAll(() => closeCheckingJournal(mock));

  it('grants a listed origin by name, with Vary: Origin, and no other', async () => {
    const granted = await preflight(mock, '/v1/partner/customers');
    expect(granted.headers.get('access-control-allow-origin')).toBe(page);
    expect(granted.headers.get('vary')).toMatch(/origin/i);
    const refused = await preflight(mock, '/v1/partner/customers', 'https://elsewhere.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('--cors', () => {
  const corsOf = (argv: string[], env: Record<string, string> = {}) => {
    const parsed = parseConfig(argv, env);
    if (parsed.help) throw new Error('unexpected --help');
    return parsed.config.cors;
  };

  it('takes *, off or a comma-separated list of origins, from the flag or CORS', () => {
    expect(corsOf([])).toEqual({ origins: '*' });
    expect(corsOf(['--cors', 'off'])).toEqual({ origins: [] });
    expect(corsOf(['--cors', 'http://localhost:3000, https://app.example.com'])).toEqual({ origins: ['http://localhost:3000', 'https://app.example.com'] });
    expect(corsOf([], { CORS: 'off' })).toEqual({ origins: [] });
  });

  it('refuses what is not an origin, saying so', () => {
    expect(() => corsOf(['--cors', 'localhost:3000'])).toThrow(/--cors/);
    expect(() => corsOf(['--cors', 'http://localhost:3000/path'])).toThrow(/origin/);
  });
});
