/**
 * Admin routes read and reset every partner's data: without --admin-token they answer this machine only (its
 * loopback and its own interfaces' addresses), and another machine is refused with 403 E_ADMIN_TOKEN_REQUIRED;
 * with a token, any machine that carries it.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminGuard, isThisMachine } from '../../../mock/admin/admin-guard.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

const anotherMachine = '198.51.100.7';

describe('the admin guard, by where a request comes from', () => {
  const open = createAdminGuard({ hosts: [] });
  const shared = createAdminGuard({ adminToken: { value: 'a-token-for-the-shared-mock', made: false }, hosts: [] });
  const headers = { host: '192.0.2.2:4010' };

  it('refuses another machine when the mock has no admin token, saying how to share it', () => {
    expect(open.check(headers, anotherMachine)).toMatchObject({ status: 403, code: 'E_ADMIN_TOKEN_REQUIRED', message: expect.stringContaining('--admin-token') });
    expect(open.check(headers, `::ffff:${anotherMachine}`)).toMatchObject({ code: 'E_ADMIN_TOKEN_REQUIRED' });
    expect(open.check(headers, undefined)).toMatchObject({ code: 'E_ADMIN_TOKEN_REQUIRED' });
  });

  it('answers this machine without a token: loopback, mapped loopback, its own interfaces', () => {
    const own = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
    for (const address of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1', ...own]) {
      expect(isThisMachine(address), address).toBe(true);
      expect(open.check(headers, address), address).toBeUndefined();
    }
    expect(isThisMachine(anotherMachine)).toBe(false);
  });

  it("never takes a request a proxy passed on for this machine's, wherever it connects from", () => {
    for (const forwarded of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9;proto=https' }, { 'x-forwarded-host': 'relay.partner.example' }, { 'x-real-ip': '203.0.113.9' }]) {
      expect(open.check({ ...headers, ...forwarded }, '127.0.0.1'), JSON.stringify(forwarded)).toMatchObject({ status: 403, code: 'E_ADMIN_TOKEN_REQUIRED', message: expect.stringContaining('proxy') });
      expect(shared.check({ ...headers, ...forwarded, 'x-mock-admin-token': 'a-token-for-the-shared-mock' }, '127.0.0.1')).toBeUndefined();
    }
  });

  it('answers another machine that carries the token of a shared mock, and only then', () => {
    expect(shared.check({ ...headers, 'x-mock-admin-token': 'a-token-for-the-shared-mock' }, anotherMachine)).toBeUndefined();
    expect(shared.check(headers, anotherMachine)).toMatchObject({ status: 401, code: 'E_ADMIN_TOKEN_MISSING' });
  });
});

describe('a mock listening on every interface, without a token', () => {
  let mock: TestMock;
  const lanAddress = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;
  beforeAll(async () => {
    mock = await startTestMock({ host: '0.0.0.0' });
  });
  afterAll(() => mock?.close());

  it.runIf(lanAddress !== undefined)("answers its admin routes to this machine through its network address", async () => {
    const { port } = new URL(mock.url);
    const response = await fetch(`http://${lanAddress}:${port}/_mock/health`);
    expect(response.status).toBe(200);
  });
});
