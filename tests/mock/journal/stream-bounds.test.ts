/**
 * The bounds of the mock's server-sent event streams (http/event-streams.ts), over real sockets: at most
 * `--max-streams` open at once, every partner's together; a stream whose client reads nothing closed once
 * `--stream-send-timeout` passes with nothing taken; every stream ended at `--stream-max-age`; and eight a partner,
 * however fast they are asked for.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/http-fixtures.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import type { StreamBounds } from '../../../mock/http/event-streams.ts';
import { buildMock, startMockProcess } from '../../../mock/launch/mock-process.ts';

const thirdKey = `dk_test_${'c'.repeat(24)}`;
const shipped: StreamBounds = { maxStreams: 256, sendTimeoutMs: 30_000, maxAgeMs: 3_600_000 };

const started: TestMock[] = [];
const cleanups: (() => void)[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await Promise.all(started.splice(0).map((mock) => mock.close()));
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function mockWith(streams: Partial<StreamBounds>): Promise<TestMock> {
  const mock = await startTestMock({ streams: { ...shipped, ...streams } });
  started.push(mock);
  return mock;
}

/** A stream read as a client reads it, until closed; its events' ids and whether the mock ended it. */
async function readStream(mock: TestMock, headers: Record<string, string> = {}) {
  const stop = new AbortController();
  cleanups.push(() => stop.abort());
  const response = await fetch(`${mock.url}/_mock/requests/stream`, { headers, signal: stop.signal });
  const ids: string[] = [];
  let text = '';
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      text += value;
      ids.push(...[...value.matchAll(/^id: (.+)$/gm)].map((match) => match[1] as string));
    }
  })();
  return { response, ids, text: () => text, ended, close: () => stop.abort() };
}

/** A client that asks for a stream, reads its head, and never reads again: its socket paused, the kernel's buffers fill. */
function neverReading(baseUrl: string, key: string): Promise<{ status: string; socket: Socket }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`GET /_mock/requests/stream HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${key}\r\n\r\n`));
    cleanups.push(() => socket.destroy());
    socket.once('error', reject);
    socket.once('data', (data: Buffer) => {
      socket.pause();
      resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 'none', socket });
    });
  });
}

/** Requests whose journal entries are most of a kilobyte each (a long path), `count` of them, 20 at a time. */
async function longRequests(baseUrl: string, key: string, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  const path = `/v1/partner/customers/cus_${'x'.repeat(480)}`;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(baseUrl);
      request({ host: url.hostname, port: url.port, path, agent, headers: { authorization: key } }, (response) => response.resume().on('end', resolve)).on('error', reject).end();
    });
  let left = count;
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (left-- > 0) await one();
  }));
  agent.destroy();
}

describe('the bounds of request streams', () => {
  it('refuses a stream past --max-streams, every partner\'s together, with 503 E_STREAM_LIMIT and Retry-After, and logs it; a stream closed frees its place', async () => {
    const mock = await mockWith({ maxStreams: 3 });
    const open = [await readStream(mock, { authorization: sandboxKey }), await readStream(mock, { authorization: otherSandboxKey }), await readStream(mock)];
    expect(open.map((stream) => stream.response.status)).toEqual([200, 200, 200]);

    const refused = await fetch(`${mock.url}/_mock/requests/stream`, { headers: { authorization: thirdKey } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('connection')).toBe('close');
    const body = (await refused.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error).toMatchObject({ code: 'E_STREAM_LIMIT', requestId: refused.headers.get('x-request-id') });
    expect(mock.logs).toContainEqual(expect.objectContaining({ level: 40, requestId: body.error.requestId, maxStreams: 3, msg: expect.stringContaining('stream refused') }));

    open[0]?.close();
    await eventually(async () => {
      const again = await readStream(mock, { authorization: thirdKey });
      if (again.response.status === 200) return true;
      again.close();
      return false;
    }, 10_000, 'the closed stream\'s place to be free');
  });

  it('allows 8 streams a partner when 20 are asked for at once', async () => {
    // On SQLite, with entries waiting to be written: a stream then starts following the journal only after a write.
    const folder = await mkdtemp(join(tmpdir(), 'stream-bounds-'));
    folders.push(folder);
    const mock = await startTestMock({ store: { kind: 'sqlite', path: join(folder, 'state.db') } });
    started.push(mock);
    await Promise.all(Array.from({ length: 50 }, () => mock.call('/v1/partner/customers')));
    const streams = await Promise.all(Array.from({ length: 20 }, () => readStream(mock, { authorization: sandboxKey })));
    const statuses = streams.map((stream) => stream.response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    expect(statuses.filter((status) => status === 409)).toHaveLength(12);
  });

  it('ends a stream at --stream-max-age; its client resumes after Last-Event-ID and misses nothing', async () => {
    // Long enough that the entry reaches the stream before it ends, on a machine busy with other work.
    const mock = await mockWith({ maxAgeMs: 3_000 });
    const first = await readStream(mock);
    const seen = await mock.call('/v1/partner/customers');
    await eventually(() => first.ids.length === 1, 5_000, 'the first entry');
    await first.ended;
    expect(first.text()).toMatch(/^retry: 2000\n\n/);
    const missed = await mock.call('/v1/partner/customers');
    const resumed = await readStream(mock, { 'last-event-id': first.ids[0] as string });
    await eventually(() => resumed.ids.length === 1, 5_000, 'the missed entry');
    const listed = (await mock.call('/_mock/requests?limit=10', { key: null })).json.payload.data as { id: string; requestId: string }[];
    const idOf = (answer: { headers: Headers }) => listed.find((entry) => entry.requestId === answer.headers.get('x-request-id'))?.id;
    expect([first.ids[0], resumed.ids[0]]).toEqual([idOf(seen), idOf(missed)]);
  });
});

describe('a stream whose client reads nothing, on the built mock', () => {
  beforeAll(() => buildMock(), 60_000);

  it('is closed once --stream-send-timeout passes with nothing of what waits for it taken, and gives its place back', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'stream-send-timeout-'));
    const mock = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '500000', '--max-streams', '1', '--stream-send-timeout', '1s'], logDir });
    try {
      const stuck = await neverReading(mock.url, sandboxKey);
      expect(stuck.status).toBe('200');
      const another = async () => (await fetch(`${mock.url}/_mock/requests/stream`, { headers: { authorization: otherSandboxKey }, signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status;
      expect(await another()).toBe(503);
      // Its entries, until the sockets' buffers between (megabytes on loopback) are full and the rest waits in the
      // mock: then nothing moves for a second, and the stream is closed.
      let status = await another();
      for (let round = 0; round < 40 && status !== 200; round += 1) {
        await longRequests(mock.url, sandboxKey, 500);
        status = await another();
      }
      expect(status).toBe(200);
      // The place is given back before the line is logged, and the log reaches its file through a pipe: the line
      // may come a moment after the answer that found the place free.
      const closedLine = /"msg":"stream closed: its client took nothing/;
      await eventually(async () => closedLine.test(await readFile(mock.logFile, 'utf8')), 5_000, 'the log line of the stream closed');
    } finally {
      await mock.stop();
      await rm(logDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('is not closed while its client reads, however slowly, and gets every entry', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'stream-send-timeout-'));
    const mock = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '500000', '--stream-send-timeout', '1s'], logDir });
    try {
      const { socket } = await neverReading(mock.url, sandboxKey);
      // A few kilobytes every 100 ms: far slower than the entries come, so that they wait in the mock for seconds.
      const marker = '\nevent: request\n';
      let received = 0;
      let tail = '';
      const reading = setInterval(() => {
        for (let chunk: Buffer | null, got = 0; got < 32 * 1024 && (chunk = socket.read() as Buffer | null) !== null; got += chunk.length) {
          const text = tail + chunk.toString('latin1');
          received += text.split(marker).length - 1;
          tail = text.slice(-marker.length + 1);
        }
      }, 100);
      cleanups.push(() => clearInterval(reading));
      const requests = 6000;
      await longRequests(mock.url, sandboxKey, requests);
      await eventually(() => received === requests, 60_000, `all ${requests} entries to be read`);
      clearInterval(reading);
      expect(await readFile(mock.logFile, 'utf8')).not.toContain('took nothing');
    } finally {
      await mock.stop();
      await rm(logDir, { recursive: true, force: true });
    }
  }, 120_000);
});
