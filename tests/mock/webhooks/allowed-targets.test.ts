/**
 * A shared mock restricts where it delivers (`--webhook-allow`): an endpoint URL it may never deliver to is refused
 * when it is set, a name not listed is connected to only at its addresses within the listed networks (so a name
 * that resolves into the mock's own network gets nowhere), and whatever a target answers, the journals and listings
 * never show its response body, nor follow its redirects.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedTargets } from '../../../mock/webhooks/allowed-targets.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { eventually } from '../support/http-fixtures.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { completedFormation, createEndpoint, portal, sandboxKey, startPortalMock } from '../portal/support.ts';

const opened: { mocks: TestMock[]; servers: Server[] } = { mocks: [], servers: [] };
afterEach(async () => {
  for (const server of opened.servers.splice(0)) server.closeAllConnections(), server.close();
  await Promise.all(opened.mocks.splice(0).map((mock) => closeCheckingJournal(mock)));
});

/** A target that answers every request with `status`, `headers` and a body, and counts what it got. */
async function target(status: number, headers: Record<string, string> = {}, body = '') {
  const received: string[] = [];
  const server = createServer((request, response) => {
    received.push(request.url ?? '');
    request.resume();
    response.writeHead(status, headers).end(body);
  });
  opened.servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, received };
}

async function mockAllowing(list: string): Promise<TestMock> {
  const mock = await startPortalMock({ webhookAllow: list, webhookRetryDelaysMs: [] });
  opened.mocks.push(mock);
  return mock;
}

const attemptsOf = async (mock: TestMock) => (await portal(mock, sandboxKey).GET('/_mock/deliveries', {})).data?.payload.attempts ?? [];

describe('--webhook-allow', () => {
  it('reads names, wildcards, addresses and networks, and refuses anything else naming the entry', () => {
    const allowed = allowedTargets('hooks.example.com, *.ngrok.app, 10.0.0.0/8, ::1');
    expect(allowed.hostProblem('hooks.example.com')).toBeUndefined();
    expect(allowed.hostProblem('abc.ngrok.app')).toBeUndefined();
    expect(allowed.hostProblem('10.20.30.40')).toBeUndefined();
    expect(allowed.hostProblem('[::1]')).toBeUndefined();
    expect(allowed.hostProblem('169.254.169.254')).toMatch(/169\.254\.169\.254 is not in --webhook-allow/);
    // A name not listed may still resolve into the networks: it is checked at each connection.
    expect(allowed.hostProblem('internal.example.org')).toBeUndefined();
    expect(allowedTargets('hooks.example.com').hostProblem('other.example.com')).toMatch(/not in --webhook-allow/);
    expect(() => allowedTargets('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33: not a network/);
    expect(() => allowedTargets('http://x')).toThrow(/not a host name, an address or a network/);
  });

  it('refuses an endpoint URL it may never deliver to, and delivers where it may', async () => {
    const mock = await mockAllowing('127.0.0.1');
    const refused = await portal(mock, sandboxKey).POST('/_mock/webhook-endpoints', { body: { url: 'http://169.254.169.254/latest/meta-data' } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.details).toEqual([expect.objectContaining({ field: '/url', code: 'E_INVALID', message: expect.stringMatching(/169\.254\.169\.254 is not in --webhook-allow/) })]);
    const receiver = await target(200);
    await createEndpoint(mock, sandboxKey, { url: `http://127.0.0.1:${receiver.port}/hooks` });
    await completedFormation(mock, sandboxKey);
    await eventually(() => receiver.received.length === 6, 10_000, 'the formation delivered');
  });

  it('connects to a name not listed only at its addresses within the networks', async () => {
    const mock = await mockAllowing('10.0.0.0/8');
    const receiver = await target(200);
    // localhost resolves to loopback, outside 10.0.0.0/8: a name pointing into the mock's own network.
    await createEndpoint(mock, sandboxKey, { url: `http://localhost:${receiver.port}/hooks` });
    await completedFormation(mock, sandboxKey);
    const [failed] = await eventually(async () => {
      const attempts = await attemptsOf(mock);
      return attempts.length > 0 && attempts;
    }, 10_000, 'an attempt journaled');
    expect(failed?.outcome).not.toBe('delivered');
    expect(failed?.error).toMatch(/localhost resolves to .*outside --webhook-allow/);
    expect(receiver.received).toEqual([]);
  });

  it("never shows a target's response body, nor follows its redirect", async () => {
    const mock = await mockAllowing('127.0.0.1');
    const elsewhere = await target(200);
    const secretBody = 'internal-only: db password hunter2';
    const failing = await target(500, { 'content-type': 'text/plain' }, secretBody);
    const redirecting = await target(302, { location: `http://127.0.0.1:${elsewhere.port}/stolen` }, secretBody);
    await createEndpoint(mock, sandboxKey, { url: `http://127.0.0.1:${failing.port}/hooks` });
    await createEndpoint(mock, sandboxKey, { url: `http://127.0.0.1:${redirecting.port}/hooks` });
    await completedFormation(mock, sandboxKey);
    await eventually(async () => (await attemptsOf(mock)).length >= 2, 10_000, 'both endpoints attempted');

    const shown = JSON.stringify([await attemptsOf(mock), (await portal(mock, sandboxKey).GET('/_mock/events', { params: { query: { limit: 100 } } })).data]);
    expect(shown).not.toContain('hunter2');
    expect(shown).toContain('HTTP 500');
    expect(shown).toMatch(/redirect 302 .*not followed/);
    expect(elsewhere.received).toEqual([]);
  });
});
