/** Starts the mock in-process on a free port, for tests that talk to it over real HTTP. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { parseConfig, type MockConfig } from '../../../mock/config/config.ts';
import { call, type CallOptions, type CallResult } from './http-call.ts';

export { otherSandboxKey, productionKey, sandboxKey, type CallOptions, type CallResult } from './http-call.ts';
import { startMock, type RunningMock } from '../../../mock/app/server.ts';
import type { Overrides } from '../../../mock/app/services.ts';

export interface TestMock extends RunningMock {
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** A fetch bound to the mock: `call('/v1/…', { key, body, idempotencyKey })`. */
  call(path: string, options?: CallOptions): Promise<CallResult>;
}


/** Settings of a mock whose formations advance on their own every 20 ms, delivering events with quick retries. */
export function quickTimelineSettings(webhookUrl: string, webhookSecret: string): Partial<MockConfig> {
  return { formationTimeline: 'auto', formationStepDelayMs: 20, webhookUrl, webhookSecret, webhookRetryDelaysMs: [20, 20, 20] };
}

type UpstreamSettings = NonNullable<MockConfig['upstream']>;

/** The settings of a test's mock: `upstream` needs its `url`; what it leaves out is as `--upstream URL` alone sets it. */
export type TestMockSettings = Omit<Partial<MockConfig>, 'upstream'> & { upstream?: Partial<UpstreamSettings> & Pick<UpstreamSettings, 'url'> };

export async function startTestMock(settings: TestMockSettings = {}, overrides: Overrides = {}): Promise<TestMock> {
  const parsed = parseConfig(['--port', '0', '--log-format', 'json', '--formation-timeline', 'manual', '--rate-limit', '100000', '--store', 'memory', ...(settings.upstream ? ['--upstream', settings.upstream.url] : [])], {});
  if (parsed.help) throw new Error('unexpected --help');
  const { upstream, ...rest } = settings;
  const config: MockConfig = { ...parsed.config, ...rest, ...(upstream ? { upstream: { ...(parsed.config.upstream as UpstreamSettings), ...upstream } } : {}) };
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      done();
    },
  });
  const mock = await startMock(config, pino({ level: config.logLevel, base: undefined }, sink), overrides);
  return {
    ...mock,
    logs,
    call: (path, options) => call(mock.url, path, options),
  };
}
