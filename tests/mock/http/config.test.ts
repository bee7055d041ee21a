/** The mock's settings (flags, their environment twins, refusals, --help) and the built mock as a process. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, helpText, parseConfig, type MockConfig } from '../../../mock/config/config.ts';
import { defaultContractPath } from '../../../contract-model/document.ts';
import { contractFacts } from '../../../generated/contract-facts.ts';
import { naicsSource } from '../../../mock/reference/index.ts';
import { expectCleanJournal } from '../support/journal-check.ts';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
const sandboxKey = `dk_test_${'a'.repeat(24)}`;
const liveKey = `dk_live_${'b'.repeat(24)}`;

function configOf(argv: string[], env: NodeJS.ProcessEnv = {}): MockConfig {
  const parsed = parseConfig(argv, env);
  if (parsed.help) throw new Error('unexpected --help');
  return parsed.config;
}

function refusal(argv: string[], env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
}

/** Every flag, with its environment twin, and a valid value for it. */
const flags: { flag: string; env: string; value: string }[] = [
  { flag: 'store', env: 'STORE', value: 'redis://127.0.0.1:6390/2' },
  { flag: 'admin-token', env: 'ADMIN_TOKEN', value: 'admin-token-0123456789' },
  { flag: 'seed', env: 'SEED_FILE', value: 'examples/seed.json' },
  { flag: 'journal-size', env: 'JOURNAL_SIZE', value: '512KiB' },
  { flag: 'unhandled-operations', env: 'UNHANDLED_OPERATIONS', value: 'examples' },
  { flag: 'port', env: 'PORT', value: '5001' },
  { flag: 'host', env: 'HOST', value: '0.0.0.0' },
  { flag: 'environment', env: 'MOCK_ENVIRONMENT', value: 'production' },
  { flag: 'public-url', env: 'PUBLIC_URL', value: 'https://mock.example.com' },
  { flag: 'upstream', env: 'UPSTREAM', value: 'https://sandbox.example.com' },
  { flag: 'upstream-timeout', env: 'UPSTREAM_TIMEOUT', value: '5s' },
  { flag: 'upstream-max-body', env: 'UPSTREAM_MAX_BODY', value: '64MiB' },
  { flag: 'upstream-fallback', env: 'UPSTREAM_FALLBACK', value: 'on' },
  { flag: 'upstream-requests', env: 'UPSTREAM_REQUESTS', value: 'forward' },
  { flag: 'record', env: 'RECORD_FILE', value: '/tmp/recording.json' },
  { flag: 'record-traffic', env: 'RECORD_TRAFFIC', value: '/tmp/traffic.json' },
  { flag: 'seed-key', env: 'SEED_KEY', value: sandboxKey },
  { flag: 'webhook-url', env: 'WEBHOOK_URL', value: 'http://127.0.0.1:9999/hooks' },
  { flag: 'webhook-secret', env: 'WEBHOOK_SECRET', value: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  { flag: 'webhook-retry-delays', env: 'WEBHOOK_RETRY_DELAYS', value: '1s,2s' },
  { flag: 'webhook-timeout', env: 'WEBHOOK_TIMEOUT', value: '3s' },
  { flag: 'webhook-history', env: 'WEBHOOK_HISTORY', value: '500' },
  { flag: 'webhook-allow', env: 'WEBHOOK_ALLOW', value: '127.0.0.1,*.example.com' },
  { flag: 'body-memory', env: 'BODY_MEMORY', value: '48MiB' },
  { flag: 'formation-timeline', env: 'FORMATION_TIMELINE', value: 'manual' },
  { flag: 'formation-step-delay', env: 'FORMATION_STEP_DELAY', value: '250ms' },
  { flag: 'api-keys', env: 'API_KEYS', value: sandboxKey },
  { flag: 'validate-responses', env: 'VALIDATE_RESPONSES', value: 'off' },
  { flag: 'rate-limit', env: 'RATE_LIMIT', value: '7' },
  { flag: 'idempotency-ttl', env: 'IDEMPOTENCY_TTL', value: '1h' },
  { flag: 'idempotency-max-records', env: 'IDEMPOTENCY_MAX_RECORDS', value: '50' },
  { flag: 'download-url-ttl', env: 'DOWNLOAD_URL_TTL', value: '2m' },
  { flag: 'headers-timeout', env: 'HEADERS_TIMEOUT', value: '5s' },
  { flag: 'request-timeout', env: 'REQUEST_TIMEOUT', value: '1m' },
  { flag: 'keep-alive-timeout', env: 'KEEP_ALIVE_TIMEOUT', value: '7s' },
  { flag: 'max-streams', env: 'MAX_STREAMS', value: '12' },
  { flag: 'stream-send-timeout', env: 'STREAM_SEND_TIMEOUT', value: '5s' },
  { flag: 'stream-max-age', env: 'STREAM_MAX_AGE', value: '10m' },
  { flag: 'log-level', env: 'LOG_LEVEL', value: 'warn' },
  { flag: 'log-format', env: 'LOG_FORMAT', value: 'pretty' },
  { flag: 'contract', env: 'CONTRACT_PATH', value: '/tmp/other-contract.json' },
  { flag: 'cors', env: 'CORS', value: 'http://localhost:3000' },
  { flag: 'docs', env: 'MOCK_DOCS', value: 'live' },
];

const published = contractFacts.limits;

describe('parseConfig', () => {
  it('defaults to the published behaviour, scaled for local use', () => {
    const config = configOf([]);
    expect(config).toMatchObject({
      port: 4010,
      host: '127.0.0.1',
      environment: 'sandbox',
      publicUrl: undefined,
      store: { kind: 'sqlite', path: resolve('.mock-data/state.db') },
      seedFile: undefined,
      unhandledOperations: 'refuse',
      journalMaxBytes: 16 * 1024 * 1024,
      webhookUrl: undefined,
      // None given: the mock makes one once and keeps it in the store.
      webhookSecret: undefined,
      webhookRetryDelaysMs: [500, 1000, 2000, 4000, 8000, 16000, 16000],
      webhookTimeoutMs: published.webhooks.attemptTimeoutSeconds * 1000,
      webhookHistoryPerPartner: 10_000,
      bodyMemoryBytes: 32 * 1024 * 1024,
      formationTimeline: 'auto',
      formationStepDelayMs: 2000,
      apiKeys: undefined,
      validateResponses: true,
      rateLimitPerSecond: published.rateLimits.sandbox.requestsPerSecond,
      idempotencyTtlMs: published.idempotencyKeyRetentionSeconds * 1000,
      idempotencyMaxRecords: 100_000,
      maxBodyBytes: published.requestBodyMaxBytes,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      downloadUrlTtlMs: published.downloadUrlValiditySeconds * 1000,
      streams: { maxStreams: 256, sendTimeoutMs: 30_000, maxAgeMs: 3_600_000 },
      logLevel: 'info',
      logFormat: process.stdout.isTTY ? 'pretty' : 'json',
      contractPath: defaultContractPath,
      docs: 'built',
      cors: { origins: '*' },
    });
  });

  it('reads the store as memory, a SQLite path (relative to the working folder) or a Redis URL', () => {
    expect(configOf(['--store', 'memory']).store).toEqual({ kind: 'memory' });
    expect(configOf(['--store', 'sqlite:/tmp/a.db']).store).toEqual({ kind: 'sqlite', path: '/tmp/a.db' });
    expect(configOf(['--store', 'sqlite:data/b.db']).store).toEqual({ kind: 'sqlite', path: resolve('data/b.db') });
    expect(configOf(['--store', 'redis://localhost:6379/3']).store).toEqual({ kind: 'redis', url: 'redis://localhost:6379/3' });
  });

  it('never repeats a Redis password in a refusal', () => {
    const message = refusal(['--store', 'redis://user:s3cret@localhost:6379/db']).message;
    expect(message).toContain('--store');
    expect(message).not.toContain('s3cret');
  });

  it('uses the production rate limit in production', () => {
    expect(configOf(['--environment', 'production']).rateLimitPerSecond).toBe(published.rateLimits.production.requestsPerSecond);
  });

  it('retries as often as the contract schedules, sooner, unless told to follow its schedule', () => {
    expect(configOf([]).webhookRetryDelaysMs).toHaveLength(published.webhooks.retryScheduleSeconds.length);
    expect(configOf(['--webhook-retry-delays', 'published']).webhookRetryDelaysMs).toEqual(published.webhooks.retryScheduleSeconds.map((seconds) => seconds * 1000));
    expect(helpText({ command: 'npm start --' })).toMatch(/or published for the contract's \d+[smh](,\d+[smh])+/);
  });

  it('reads each setting from its environment variable', () => {
    const env = Object.fromEntries(flags.map(({ env, value }) => [env, value]));
    const config = configOf([], { ...env, API_KEYS: liveKey });
    expect(config).toMatchObject({
      port: 5001,
      host: '0.0.0.0',
      environment: 'production',
      publicUrl: 'https://mock.example.com',
      webhookUrl: 'http://127.0.0.1:9999/hooks',
      webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      store: { kind: 'redis', url: 'redis://127.0.0.1:6390/2' },
      adminToken: 'admin-token-0123456789',
      seedFile: 'examples/seed.json',
      seedKey: sandboxKey,
      recordTraffic: '/tmp/traffic.json',
      journalMaxBytes: 512 * 1024,
      unhandledOperations: 'examples',
      webhookRetryDelaysMs: [1000, 2000],
      webhookTimeoutMs: 3000,
      webhookHistoryPerPartner: 500,
      webhookAllow: '127.0.0.1,*.example.com',
      bodyMemoryBytes: 48 * 1024 * 1024,
      formationTimeline: 'manual',
      formationStepDelayMs: 250,
      apiKeys: [liveKey],
      validateResponses: false,
      rateLimitPerSecond: 7,
      idempotencyTtlMs: 3_600_000,
      idempotencyMaxRecords: 50,
      downloadUrlTtlMs: 120_000,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 7_000,
      streams: { maxStreams: 12, sendTimeoutMs: 5_000, maxAgeMs: 600_000 },
      logLevel: 'warn',
      logFormat: 'pretty',
      contractPath: '/tmp/other-contract.json',
      cors: { origins: ['http://localhost:3000'] },
    });
  });

  it('lets a flag win over its environment variable', () => {
    const config = configOf(['--port', '5002', '--formation-timeline', 'auto', '--rate-limit', '9'], { PORT: '6000', FORMATION_TIMELINE: 'manual', RATE_LIMIT: '3' });
    expect(config.port).toBe(5002);
    expect(config.formationTimeline).toBe('auto');
    expect(config.rateLimitPerSecond).toBe(9);
  });

  it('treats an empty environment variable as unset', () => {
    expect(configOf([], { PORT: '', MOCK_ENVIRONMENT: '' })).toMatchObject({ port: 4010, environment: 'sandbox' });
  });

  it('reads durations in ms, s, m and h', () => {
    const config = configOf(['--webhook-retry-delays', '20ms,1.5s,2m,1h', '--formation-step-delay', '20ms']);
    expect(config.webhookRetryDelaysMs).toEqual([20, 1500, 120_000, 3_600_000]);
    expect(config.formationStepDelayMs).toBe(20);
  });

  it('refuses a duration without its unit, rather than guess milliseconds', () => {
    expect(refusal(['--formation-step-delay', '20']).message).toMatch(/--formation-step-delay .*unit.*got "20"/);
    expect(refusal(['--webhook-retry-delays', '1s,20']).message).toContain('--webhook-retry-delays');
  });

  it.each([
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--environment', 'staging'], '--environment'],
    [['--webhook-secret', 'nope'], '--webhook-secret'],
    [['--api-keys', liveKey], '--api-keys'],
    [['--environment', 'production', '--api-keys', `${liveKey},${sandboxKey}`], '--api-keys'],
    [['--api-keys', 'dk_test_short'], '--api-keys'],
    [['--webhook-url', 'not a url'], '--webhook-url'],
    [['--webhook-url', 'ftp://example.com/hooks'], '--webhook-url'],
    [['--formation-timeline', 'weekly'], '--formation-timeline'],
    [['--formation-step-delay', 'soon'], '--formation-step-delay'],
    [['--webhook-timeout', '0'], '--webhook-timeout'],
    [['--webhook-timeout', '0.1ms'], '--webhook-timeout'],
    [['--validate-responses', 'maybe'], '--validate-responses'],
    [['--rate-limit', '0'], '--rate-limit'],
    [['--rate-limit', '500001'], '--rate-limit'],
    [['--log-level', 'loud'], '--log-level'],
    [['--docs', 'static'], '--docs'],
    [['--store', 'postgres://db'], '--store'],
    [['--admin-token', 'short'], '--admin-token'],
    [['--webhook-url', 'https://user:secret@hooks.example.com/x'], '--webhook-url'],
    [['--store', 'sqlite:'], '--store'],
    [['--store', 'redis://localhost:6379/x'], '--store'],
    [['--journal-size', '1KiB'], '--journal-size'],
    [['--journal-size', 'lots'], '--journal-size'],
    [['--unhandled-operations', 'guess'], '--unhandled-operations'],
    [['--headers-timeout', '0'], '--headers-timeout'],
    [['--request-timeout', 'forever'], '--request-timeout'],
    [['--keep-alive-timeout', '0'], '--keep-alive-timeout'],
    [['--headers-timeout', '20s', '--request-timeout', '10s'], '--headers-timeout'],
    [['--upstream', 'sandbox.example.com'], '--upstream'],
    [['--upstream-timeout', '5s'], '--upstream-timeout'],
    [['--upstream-fallback', 'on'], '--upstream-fallback'],
    [['--record', 'recording.json'], '--record'],
    [['--seed-key', 'dk_test_aaaaaaaaaaaaaaaaaaaaaaaa'], '--seed-key'],
    [['--upstream', 'https://sandbox.example.com', '--upstream-requests', 'ignore'], '--upstream-requests'],
    [['--upstream', 'https://sandbox.example.com', '--upstream-fallback', 'maybe'], '--upstream-fallback'],
    [['--upstream', 'https://sandbox.example.com', '--upstream-timeout', '0'], '--upstream-timeout'],
    [['--upstream', 'https://sandbox.example.com', '--upstream-max-body', '2TiB'], '--upstream-max-body'],
    [['--webhook-allow', '10.0.0.0/40'], '--webhook-allow'],
    [['--webhook-allow', 'https://hooks.example.com'], '--webhook-allow'],
    [['--webhook-allow', '10.0.0.0/8', '--webhook-url', 'http://169.254.169.254/'], '--webhook-url'],
    [['--webhook-history', '5'], '--webhook-history'],
    [['--body-memory', '1MiB'], '--body-memory'],
    [['--max-streams', '0'], '--max-streams'],
    [['--max-streams', 'many'], '--max-streams'],
    [['--stream-send-timeout', '30'], '--stream-send-timeout'],
    [['--stream-send-timeout', '500ms'], '--stream-send-timeout'],
    [['--stream-max-age', '30d'], '--stream-max-age'],
    [['--stream-max-age', '25h'], '--stream-max-age'],
    [['--nonsense'], 'nonsense'],
  ])('refuses %j with a ConfigError naming %s', (argv, name) => {
    expect(refusal(argv).message).toContain(name);
  });

  it('refuses a bad environment variable, naming the setting', () => {
    expect(refusal([], { PORT: 'abc' }).message).toContain('--port');
    expect(refusal([], { WEBHOOK_SECRET: 'nope' }).message).toContain('--webhook-secret');
  });

  it('does not print a refused API key whole', () => {
    const key = `dk_live_${'Z'.repeat(40)}`;
    expect(refusal(['--api-keys', key]).message).not.toContain(key);
  });

  it('answers --help instead of a configuration', () => {
    expect(parseConfig(['--help'], {})).toEqual({ help: true });
  });
});

describe('helpText', () => {
  const text = helpText({ command: 'npm start --' });

  it.each(flags)('lists --$flag with its variable $env', ({ flag, env }) => {
    const line = text.split('\n').find((row) => row.trimStart().startsWith(`--${flag} `) || row.trim() === `--${flag}`);
    expect(line, `no line for --${flag}`).toBeDefined();
    expect(line).toContain(`[${env}]`);
  });

  it('says that a --public-url others reach makes the admin routes ask for a token, made and printed unless given', () => {
    const line = (flag: string) => text.split('\n').find((row) => row.trimStart().startsWith(`--${flag} `)) ?? '';
    expect(line('public-url')).toMatch(/not this machine.*admin token/);
    expect(line('admin-token')).toMatch(/but the relay.*--public-url.*made.*printed/);
  });

  it('lists --help, and only flags that parseConfig accepts', () => {
    expect(text).toMatch(/^\s+--help\b/m);
    const listed = [...text.matchAll(/^\s+--([a-z-]+)/gm)].map((match) => match[1] as string);
    expect(new Set(listed)).toEqual(new Set([...flags.map(({ flag }) => flag), 'help']));
  });
});

describe('the built mock', () => {
  const run = promisify(execFile);
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await run(process.execPath, ['scripts/build-mock.mjs'], { cwd: projectRoot });
  }, 60_000);

  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  const data = mkdtempSync(join(tmpdir(), 'built-mock-'));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it('prints a JSON start line with its URL, its store and the secret it keeps, serves, and exits 0 on SIGTERM', async () => {
    const store = `sqlite:${join(data, 'state.db')}`;
    const args = ['.build/main.mjs', '--port', '0', '--log-format', 'json', '--store', store, '--webhook-url', 'http://127.0.0.1:9/hooks'];
    const started = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stdout = '';
    let stderr = '';
    started.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));

    const deadline = Date.now() + 15_000;
    const startLine = () =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => typeof line.url === 'string');
    while ((!startLine() || !/whsec_/.test(stdout)) && Date.now() < deadline && started.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const line = startLine();
    expect(line, `stdout: ${stdout}\nstderr: ${stderr}`).toBeDefined();
    expect(line).toMatchObject({ environment: 'sandbox', validateResponses: true, store });
    expect(line?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stdout).toMatch(/Webhook signing secret .*: whsec_[A-Za-z0-9+/=]{16,}/);

    const health = await fetch(`${line?.url as string}/_mock/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { payload: { referenceData: unknown } }).payload.referenceData).toEqual({
      naics: { edition: 2022, source: naicsSource.source, sha256: naicsSource.sha256 },
    });
    const states = await fetch(`${line?.url as string}/v1/partner/reference/states?limit=1`, { headers: { authorization: sandboxKey } });
    expect(states.status).toBe(200);
    await expectCleanJournal({ url: line?.url as string });

    const sentAt = Date.now();
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - sentAt).toBeLessThan(5_000);
    expect(stdout).toContain('shutting down');

    // The secret was made once and kept: started again on the same store, the mock signs with the same one.
    const secret = /Webhook signing secret .*: (whsec_\S+)/.exec(stdout)?.[1];
    const restarted = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child = restarted;
    let restartedOut = '';
    restarted.stdout?.on('data', (chunk: Buffer) => (restartedOut += chunk.toString()));
    const restartDeadline = Date.now() + 15_000;
    while (!/Webhook signing secret/.test(restartedOut) && Date.now() < restartDeadline && restarted.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(/Webhook signing secret .*: (whsec_\S+)/.exec(restartedOut)?.[1]).toBe(secret);
    restarted.kill('SIGTERM');
  });

  it("in the terminal's format, prints a readable start line before the secret, a line per request, and its last lines before it exits", async () => {
    const args = ['.build/main.mjs', '--port', '0', '--log-format', 'pretty', '--store', 'memory', '--webhook-url', 'http://127.0.0.1:9/hooks'];
    const started = spawn(process.execPath, args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stdout = '';
    started.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 15_000;
    while (!/whsec_/.test(stdout) && Date.now() < deadline && started.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
    // Formatted by a worker thread, and out before anything printed after it.
    // At localhost, as the README writes it and a browser opens it: the address it listens on is its own.
    expect(stdout, stdout).toMatch(/^\[[\d:.]+\] INFO: Partner Formation API mock \(sandbox\) listening on (http:\/\/localhost:\d+) .*\nWebhook signing secret/);
    const url = /listening on (http:\/\/localhost:\d+)/.exec(stdout)?.[1] as string;
    expect((await fetch(`${url}/v1/partner/reference/states?limit=1`, { headers: { authorization: sandboxKey, 'x-request-id': 'req_pretty' } })).status).toBe(200);
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/INFO: GET \/v1\/partner\/reference\/states 200 .*"requestId":"req_pretty"/);
    expect(stdout).toMatch(/INFO: shutting down/);
    expect(stdout).not.toMatch(/^\{/m);
  });

  it('announces where it listens even when the log level hides info, and then logs no requests', async () => {
    const started = spawn(process.execPath, ['.build/main.mjs', '--port', '0', '--log-format', 'json', '--log-level', 'error', '--store', 'memory'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stdout = '';
    started.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const lines = () => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const deadline = Date.now() + 15_000;
    while (!lines().some((line) => typeof line.url === 'string') && Date.now() < deadline && started.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const url = lines().find((line) => typeof line.url === 'string')?.url as string | undefined;
    expect(url, `stdout: ${stdout}`).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    expect((await fetch(`${url as string}/v1/partner/reference/states?limit=1`, { headers: { authorization: sandboxKey } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines().filter((line) => typeof line.requestId === 'string')).toEqual([]);
    started.kill('SIGTERM');
  });

  it('exits 2 with the reason on stderr for a bad flag', async () => {
    const failure = await run(process.execPath, ['.build/main.mjs', '--port', 'abc'], { cwd: projectRoot }).then(
      () => undefined,
      (error: { code?: number; stderr?: string; stdout?: string }) => error,
    );
    expect(failure, 'the mock started').toBeDefined();
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/--port must be a whole number/);
    expect(failure?.stdout).toBe('');
  });

  it('prints the help text with --help and exits 0', async () => {
    const { stdout } = await run(process.execPath, ['.build/main.mjs', '--help'], { cwd: projectRoot });
    expect(stdout.trim()).toBe(helpText({ command: 'npm start --' }));
  });
});
