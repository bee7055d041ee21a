/** Starts the mock in-process on a free port, for tests that talk to it over real HTTP. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { parseConfig, type MockConfig } from '../../../mock/config.ts';
import type { Handlers } from '../../../mock/resources/handler.ts';
import { startMock, type RunningMock } from '../../../mock/server.ts';

export interface TestMock extends RunningMock {
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** A fetch bound to the mock: `call('/v1/…', { key, body, idempotencyKey })`. */
  call(path: string, options?: CallOptions): Promise<CallResult>;
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  json: any;
  bytes: Uint8Array;
}

export const sandboxKey = 'dk_test_' + 'a'.repeat(24);
export const otherSandboxKey = 'dk_test_' + 'b'.repeat(24);
export const productionKey = 'dk_live_' + 'c'.repeat(24);

/** Settings of a mock whose formations advance on their own every 20 ms, delivering events with quick retries. */
export function quickTimelineSettings(webhookUrl: string, webhookSecret: string): Partial<MockConfig> {
  return { formationTimeline: 'auto', formationStepDelayMs: 20, webhookUrl, webhookSecret, webhookRetryDelaysMs: [20, 20, 20] };
}

export async function startTestMock(settings: Partial<MockConfig> = {}, overrides: { handlers?: Handlers } = {}): Promise<TestMock> {
  const parsed = parseConfig(['--port', '0', '--log-format', 'json', '--formation-timeline', 'manual', '--rate-limit', '100000'], {});
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
    async call(path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? sandboxKey : options.key;
      if (key !== null) headers.authorization = key;
      if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${mock.url}${path}`, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const text = new TextDecoder().decode(bytes);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, headers: response.headers, json, bytes };
    },
  };
}
