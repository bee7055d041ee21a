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

export async function startTestMock(settings: Partial<MockConfig> = {}, overrides: Overrides = {}): Promise<TestMock> {
  const parsed = parseConfig(['--port', '0', '--log-format', 'json', '--formation-timeline', 'manual', '--rate-limit', '100000', '--store', 'memory'], {});
  if (parsed.help) throw new Error('unexpected --help');
  const config: MockConfig = { ...parsed.config, ...settings };
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
