import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMock, startMockProcess } from '../../mock/launch/mock-process.ts';

/** Whether a process with this id still exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** This process's children, from /proc (Linux); `undefined` where there is no /proc to read. */
function children(): string[] | undefined {
  const tasks = `/proc/${process.pid}/task`;
  if (!existsSync(tasks)) return undefined;
  return readdirSync(tasks).flatMap((task) => readFileSync(`${tasks}/${task}/children`, 'utf8').split(' ').filter(Boolean));
}

describe('the mock launcher shared by the suite, the runners and the benchmark', () => {
  let logDir: string;
  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'mock-process-test-'));
    await buildMock();
  }, 60_000);
  afterAll(async () => {
    await rm(logDir, { recursive: true, force: true });
  });

  it('starts the mock on a port it picks, resolves with the URL it announces, and stops it', async () => {
    const mock = await startMockProcess({ args: ['--formation-timeline', 'manual'], logDir });
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${mock.url}/_mock/health`);
      expect(health.status).toBe(200);
      expect(mock.exitedEarly()).toBeUndefined();
    } finally {
      await Promise.all([mock.stop(), mock.stop()]);
    }
    expect(alive(mock.pid)).toBe(false);
    expect(mock.exitedEarly()).toBeUndefined();
    const log = await readFile(mock.logFile, 'utf8');
    expect(log).toContain('listening');
    // The start line says where the console is.
    expect(log).toContain(`(console: ${mock.url.replace('127.0.0.1', 'localhost')}/_mock/console)`);
  });

  it("ignores the mock's own variables in the caller's environment: the launcher's arguments decide", async () => {
    const set = { HOST: '0.0.0.0', VALIDATE_RESPONSES: 'off', LOG_LEVEL: 'silent', API_KEYS: `dk_test_${'z'.repeat(24)}` };
    const saved = Object.fromEntries(Object.keys(set).map((name) => [name, process.env[name]]));
    Object.assign(process.env, set);
    let mock;
    try {
      mock = await startMockProcess({ args: ['--formation-timeline', 'manual'], logDir });
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(((await (await fetch(`${mock.url}/_mock/settings`)).json()) as { payload: unknown }).payload).toEqual({ validateResponses: true });
      const states = await fetch(`${mock.url}/v1/partner/reference/states?limit=1`, { headers: { authorization: `dk_test_${'a'.repeat(24)}` } });
      expect(states.status).toBe(200);
    } finally {
      await mock.stop();
    }
  });

  it("finds where the mock listens in the terminal's format too (--log-format pretty)", async () => {
    const mock = await startMockProcess({ args: ['--log-format', 'pretty', '--store', 'memory'], logDir });
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(mock.startupMs).toBeGreaterThan(0);
      expect((await fetch(`${mock.url}/_mock/health`)).status).toBe(200);
    } finally {
      await mock.stop();
    }
  });

  it("writes a quiet mock's log lines on their own: lines are written a few KiB at a time, and a lone request's too, soon", async () => {
    const mock = await startMockProcess({ args: ['--formation-timeline', 'manual'], logDir });
    try {
      const requestId = 'req_lone_line';
      await fetch(`${mock.url}/v1/partner/reference/states`, { headers: { 'x-request-id': requestId } });
      // Far below a buffer's worth: it reaches the log only by the periodic flush, the mock running on.
      let found = false;
      for (let waited = 0; !found && waited < 10_000; waited += 50) {
        found = (await readFile(mock.logFile, 'utf8')).includes(`"requestId":"${requestId}"`);
        if (!found) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(found).toBe(true);
      expect(mock.exitedEarly()).toBeUndefined();
    } finally {
      await mock.stop();
    }
  });

  it('says where its log is when the mock exits before it listens', async () => {
    const failure = startMockProcess({ args: ['--formation-timeline', 'sideways'], logDir });
    await expect(failure).rejects.toThrow(/exited before it listened; its log: .*mock\.log/);
  });

  it('rejects with the reason, and leaves no process behind, when the start is aborted', async () => {
    const before = children();
    const controller = new AbortController();
    const started = startMockProcess({ args: [], logDir, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    await expect(started).rejects.toThrow('interrupted');
    expect(children()).toEqual(before);
  });
});
