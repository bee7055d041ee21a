/** Per-key rate limiting: bursts of twice the rate, then 429 with Retry-After; RateLimit-* on every answer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../mock/config/config.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock({ rateLimitPerSecond: 2 });
});
afterAll(() => closeCheckingJournal(mock));

function expectRateLimitHeaders(response: CallResult): void {
  expect(response.headers.get('ratelimit-limit')).toBe('2');
  expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
  // Never above the limit: the burst is stated by the policy, not by a remainder larger than the limit.
  expect(Number(response.headers.get('ratelimit-remaining'))).toBeLessThanOrEqual(2);
  expect(response.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  expect(response.headers.get('ratelimit-policy')).toBe('2;w=1;burst=4');
}

describe('a mock limited to 2 requests per second', () => {
  it('lets a burst of 4 through, then answers 429 E_RATE_LIMITED with Retry-After', async () => {
    // Sent at once, so that the bucket barely refills during the burst however slow the machine.
    const responses = await Promise.all(Array.from({ length: 8 }, () => mock.call('/v1/partner/reference/states?limit=1', { key: sandboxKey })));
    for (const response of responses) expectRateLimitHeaders(response);

    const passed = responses.filter((response) => response.status === 200);
    const limited = responses.filter((response) => response.status === 429);
    expect(passed.length + limited.length).toBe(8);
    // Four from the burst allowance, and at most one more if half a second went by.
    expect(passed.length).toBeGreaterThanOrEqual(4);
    expect(passed.length).toBeLessThanOrEqual(5);
    expect(passed.map((response) => Number(response.headers.get('ratelimit-remaining'))).sort()).toEqual(expect.arrayContaining([0, 1, 2]));
    for (const response of limited) {
      expect(response.json).toMatchObject({ payload: null, error: { code: 'E_RATE_LIMITED' } });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('counts down RateLimit-Remaining request by request', async () => {
    const key = `dk_test_${'C0unt'.repeat(5)}`;
    const first = await mock.call('/v1/partner/reference/states?limit=1', { key });
    const second = await mock.call('/v1/partner/reference/states?limit=1', { key });
    // Three left of the burst of four, shown as at most the limit.
    expect(Number(first.headers.get('ratelimit-remaining'))).toBe(2);
    expect(Number(second.headers.get('ratelimit-remaining'))).toBeLessThanOrEqual(2);
    expect(Number(second.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  });

  it('limits each key on its own', async () => {
    const response = await mock.call('/v1/partner/reference/states?limit=1', { key: otherSandboxKey });
    expect(response.status).toBe(200);
    expectRateLimitHeaders(response);
  });

  it('carries the headers on error answers too', async () => {
    const key = `dk_test_${'H'.repeat(24)}`;
    for (const path of ['/v1/partner/nowhere', '/v1/partner/customers?limit=0', '/v1/partner/customers/nope']) {
      expectRateLimitHeaders(await mock.call(path, { key }));
    }
    expectRateLimitHeaders(await mock.call('/v1/partner/reference/states', { key: null }));
  });

  it('limits callers without a valid key by their address, however many junk keys they send', async () => {
    const junk = await Promise.all(Array.from({ length: 12 }, (_, n) => mock.call('/v1/partner/reference/states?limit=1', { key: `junk-key-${n}` })));
    // One bucket for the address (which earlier requests without a key may have drawn on): four at most get through.
    expect(junk.filter((response) => response.status === 401).length).toBeLessThanOrEqual(4);
    expect(junk.filter((response) => response.status === 429).length).toBeGreaterThanOrEqual(8);
    for (const response of junk) expectRateLimitHeaders(response);
  });

  it('lets the key through again once Retry-After has passed', async () => {
    let response = await mock.call('/v1/partner/reference/states?limit=1', { key: sandboxKey });
    for (let i = 0; i < 10 && response.status !== 429; i += 1) response = await mock.call('/v1/partner/reference/states?limit=1', { key: sandboxKey });
    expect(response.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000 + 50));
    expect((await mock.call('/v1/partner/reference/states?limit=1', { key: sandboxKey })).status).toBe(200);
  });
});

describe('the highest rate limit the settings accept', () => {
  it('still gives RateLimit-* values within the bounds of the contract', async () => {
    const highest = '500000';
    const parsed = parseConfig(['--rate-limit', highest], {});
    if (parsed.help) throw new Error('unexpected --help');
    const fast = await startTestMock({ rateLimitPerSecond: parsed.config.rateLimitPerSecond });
    try {
      const response = await fast.call('/v1/partner/reference/states?limit=1');
      expect(response.status, JSON.stringify(response.json)).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe(highest);
      expect(Number(response.headers.get('ratelimit-remaining'))).toBeLessThanOrEqual(1_000_000);
    } finally {
      await closeCheckingJournal(fast);
    }
  });
});
