/**
 * A mock reached through a tunnel is never open to the internet: a tunnel's agent connects from this machine and
 * sends the public Host, so with a `--public-url` that is not this machine's the admin routes (but the relay) ask
 * for the admin token even from loopback, and the mock makes one, keeps it in its store and prints it when none is
 * given. A request a proxy passed on (`Forwarded`, `X-Forwarded-For`) is never taken for this machine's. Played with
 * the built mock as a process, as `npm start` runs it.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, startMockProcess, type MockProcess } from '../../../mock/launch/mock-process.ts';
import { eventually } from '../support/http-fixtures.ts';
import { rawRequest } from '../support/http-call.ts';

const publicUrl = 'https://relay.partner.example';
const publicHost = new URL(publicUrl).host;

let folder: string;
const started: MockProcess[] = [];

/** A mock on the SQLite store named `store` (its own unless given), logging to a folder of its own. */
async function start(args: string[], label: string, store = label): Promise<MockProcess> {
  const logDir = join(folder, label);
  await mkdir(logDir, { recursive: true });
  const mock = await startMockProcess({ args: ['--store', `sqlite:${join(folder, `${store}.db`)}`, ...args], logDir });
  started.push(mock);
  return mock;
}

/** The admin token the mock printed when it started, read from its output as a person reads it. */
async function printedToken(mock: MockProcess): Promise<string> {
  return eventually(async () => /^Admin token .*: (\S+)$/m.exec(await readFile(mock.logFile, 'utf8'))?.[1], 10_000, 'the admin token printed at start');
}

/** `POST /_mock/reset` as a tunnel passes it on: from loopback, for the public host. */
function resetThroughTunnel(mock: MockProcess, headers: Record<string, string> = {}) {
  return rawRequest(mock.url, 'POST', '/_mock/reset', { host: publicHost, ...headers });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mock-public-url-'));
  await buildMock();
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((mock) => mock.stop()));
  await rm(folder, { recursive: true, force: true });
});

describe('a mock started with a --public-url that reaches it from the internet, and no --admin-token', () => {
  it('asks for the token it made and printed on every admin route but the relay, from loopback too', async () => {
    const mock = await start(['--public-url', publicUrl], 'first');
    const token = await printedToken(mock);
    expect(token).toMatch(/^[!-~]{16,256}$/);

    const refused = await resetThroughTunnel(mock);
    expect([refused.status, JSON.parse(refused.body.toString()).error.code]).toEqual([401, 'E_ADMIN_TOKEN_MISSING']);
    expect(JSON.parse(refused.body.toString()).error.message).toMatch(/printed when the mock started/);
    const local = await rawRequest(mock.url, 'GET', '/_mock/requests', { host: new URL(mock.url).host });
    expect(local.status).toBe(401);
    const reset = await resetThroughTunnel(mock, { 'x-mock-admin-token': token });
    expect([reset.status, JSON.parse(reset.body.toString()).payload]).toEqual([200, { reset: 'everything' }]);

    // The relay is the sandbox's way in: no token, its signature is its credential.
    const relay = await rawRequest(mock.url, 'POST', '/_mock/relay/we_3fTq8ZmP1xLk6VbN9cRw2HsD', { host: publicHost, 'content-type': 'application/json' }, '{}');
    expect([relay.status, JSON.parse(relay.body.toString()).error.code]).toEqual([404, 'E_NOT_FOUND']);
    // The console's page and the API are not admin routes.
    expect((await rawRequest(mock.url, 'GET', '/_mock/console', { host: publicHost })).status).toBe(200);
    expect((await rawRequest(mock.url, 'GET', '/v1/partner/reference/states?limit=1', { host: publicHost, authorization: `dk_test_${'a'.repeat(24)}` })).status).toBe(200);
    await mock.stop();

    // Kept in the store: started again on it, the mock asks for the same token.
    const again = await start(['--public-url', publicUrl], 'again', 'first');
    expect(await printedToken(again)).toBe(token);
    expect((await resetThroughTunnel(again, { 'x-mock-admin-token': token })).status).toBe(200);
    await again.stop();
  });

  it('takes the --admin-token given instead, and prints none', async () => {
    const mock = await start(['--public-url', publicUrl, '--admin-token', 'a-token-chosen-by-its-owner'], 'given');
    expect((await resetThroughTunnel(mock)).status).toBe(401);
    expect((await resetThroughTunnel(mock, { 'x-mock-admin-token': 'a-token-chosen-by-its-owner' })).status).toBe(200);
    expect(await readFile(mock.logFile, 'utf8')).not.toMatch(/^Admin token/m);
    await mock.stop();
  });
});

describe('a mock without a token whose --public-url is this machine', () => {
  it('answers this machine without one, but not a request a proxy passed on', async () => {
    const mock = await start(['--public-url', 'http://localhost:4010'], 'local');
    const host = new URL(mock.url).host;
    expect((await rawRequest(mock.url, 'POST', '/_mock/reset', { host })).status).toBe(200);
    for (const forwarded of [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9;proto=https' }] as Record<string, string>[]) {
      const refused = await rawRequest(mock.url, 'POST', '/_mock/reset', { host, ...forwarded });
      expect([refused.status, JSON.parse(refused.body.toString()).error.code], JSON.stringify(forwarded)).toEqual([403, 'E_ADMIN_TOKEN_REQUIRED']);
    }
    expect(await readFile(mock.logFile, 'utf8')).not.toMatch(/^Admin token/m);
    await mock.stop();
  });
});
