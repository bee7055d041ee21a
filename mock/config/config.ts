/**
 * The mock's settings: each flag has an environment-variable twin (the flag wins). Bad values are refused at
 * start with a message naming the setting, never half-applied.
 */
import { parseArgs } from 'node:util';
import { defaultContractPath } from '../../contract-model/document.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import { wellFormedKey, type Environment } from '../auth/api-keys.ts';
import type { StreamBounds } from '../http/event-streams.ts';
import { maxStreamsPerScope } from '../journal/journal-handlers.ts';
import { defaultStoreSpec, parseStoreSpec, type StoreSpec } from '../store/open-store.ts';
import { StoreError } from '../store/store-error.ts';
import { allowedTargets } from '../webhooks/allowed-targets.ts';
import { endpointUrlProblem, maskEndpointUrl } from '../webhooks/endpoint-url.ts';
import { redocScriptPath } from '../served-documents/live-docs.ts';

export interface MockConfig {
  port: number;
  host: string;
  environment: Environment;
  /** The address clients reach the mock at, for absolute URLs (document downloads). Defaults to http://host:port. */
  publicUrl?: string;
  /**
   * A server speaking the contract (the real sandbox) that API requests are forwarded to (`--upstream`): the mock is
   * then a proxy that checks both sides against the contract.
   */
  upstream?: {
    url: string;
    /** How long the upstream may take to send its whole answer, head and body. */
    timeoutMs: number;
    /** The most body bytes read of an upstream's answer (`--upstream-max-body`); past it, the proxy answers 502. */
    maxBodyBytes: number;
    fallback: boolean;
    requests: 'refuse' | 'forward';
    /** `--record FILE`. */
    record?: string;
  };
  /**
   * Required on every admin route but the relay when set (`--admin-token`); without one, a `--public-url` others
   * reach makes the mock make one (app/services.ts).
   */
  adminToken?: string;
  /** Where state is kept (`--store`). */
  store: StoreSpec;
  /** Where the traffic served is recorded, as a traffic document for a review to replay (`--record-traffic`). */
  recordTraffic?: string;
  /** A seed file applied at start (`--seed`). */
  seedFile?: string;
  /** The key of the partner a seed without keys (a recording) is loaded for (`--seed-key`). */
  seedKey?: string;
  /** What to do with an operation of the served contract that has no handler: refuse to start, or answer from its examples. */
  unhandledOperations: 'refuse' | 'examples';
  webhookUrl?: string;
  /** Where webhooks may be delivered (`--webhook-allow`): hosts, addresses and networks; anywhere when absent. */
  webhookAllow?: string;
  /** The signing secret given; when absent, one is made once and kept in the store. */
  webhookSecret?: string;
  /** Delays before each retry of a failed delivery. */
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  /**
   * What each partner keeps of its webhooks: events once delivered, and delivery attempts; on the memory store,
   * also how many deliveries may wait at once (its heap is all it has). Each partner's own, never shared.
   */
  webhookHistoryPerPartner: number;
  formationTimeline: 'auto' | 'manual';
  formationStepDelayMs: number;
  /** When set, only these keys are accepted; otherwise any well-formed key of the environment. */
  apiKeys?: string[];
  validateResponses: boolean;
  rateLimitPerSecond: number;
  idempotencyTtlMs: number;
  /** Per partner: one partner's creates never evict another's keys. */
  idempotencyMaxRecords: number;
  /** What the request journal may hold, in bytes. */
  journalMaxBytes: number;
  maxBodyBytes: number;
  /** The bytes of request bodies held at once across all connections (`--body-memory`); past it, 503. */
  bodyMemoryBytes: number;
  /** How long a client may take to send a request's line and headers (Node's `headersTimeout`); then 408. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included (Node's `requestTimeout`); then 408. */
  requestTimeoutMs: number;
  /** How long an idle connection is kept open for the next request (Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** How long a document download URL stays valid (by default what the contract publishes). */
  downloadUrlTtlMs: number;
  /** The bounds of the server-sent event streams (`--max-streams`, `--stream-send-timeout`, `--stream-max-age`). */
  streams: StreamBounds;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  logFormat: 'pretty' | 'json';
  contractPath: string;
  /**
   * Which reference docs `/docs` serves: the standalone page `npm run generate` builds, or a page that renders the
   * contract being served in the browser and follows its reloads (`npm run dev`).
   */
  docs: 'built' | 'live';
  /** Which pages may call the API routes from a browser: any (`*`), these origins, or none (an empty list). */
  cors: { origins: '*' | string[] };
}

/**
 * The streams' bounds unless told otherwise: a few consoles and scripts per partner fit many times over (a stream
 * holds about 45 KB while nothing waits for it); a client that reads nothing for half a minute is gone, or not
 * reading; an hour is long enough that a console's reconnection (two seconds) is rare.
 */
const defaultStreams: StreamBounds = { maxStreams: 256, sendTimeoutMs: 30_000, maxAgeMs: 3_600_000 };

/** What the contract publishes (its `x-service-limits`): the defaults of the settings that mirror it. */
const published = contractFacts.limits;

/** Whole seconds as a duration setting takes them, in the largest unit that divides them: `86400` → `24h`. */
function asDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  return seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
}

const sizeUnits: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
/** Bytes as a size setting takes them, in the largest unit that divides them: `26214400` → `25MiB`. */
function asSize(bytes: number): string {
  const unit = ['GiB', 'MiB', 'KiB'].find((name) => bytes % (sizeUnits[name] as number) === 0);
  return unit === undefined ? String(bytes) : `${bytes / (sizeUnits[unit] as number)}${unit}`;
}

/**
 * The mock's retry delays unless told otherwise: one per retry the contract schedules, doubling from half a second to
 * at most 16 s, so that a failing endpoint is disabled within a minute rather than the published 28 hours.
 */
const scaledDownRetryDelays = published.webhooks.retryScheduleSeconds.map((_, index) => `${Math.min(16, 0.5 * 2 ** index)}s`).join(',');
const publishedRetryDelays = published.webhooks.retryScheduleSeconds.map(asDuration).join(',');

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** Machine-readable, for a caller that branches on it (the mock in process throws it to its test). */
  readonly code = 'E_MOCK_OPTION_INVALID';
}

interface Option {
  flag: string;
  env: string;
  type: 'string' | 'boolean';
  placeholder?: string;
  help: string;
}

const options: Option[] = [
  { flag: 'port', env: 'PORT', type: 'string', placeholder: 'N', help: 'port to listen on (default 4010; 0 picks a free one)' },
  { flag: 'host', env: 'HOST', type: 'string', placeholder: 'ADDR', help: 'address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)' },
  { flag: 'store', env: 'STORE', type: 'string', placeholder: 'SPEC', help: `where state is kept: sqlite:PATH (default ${defaultStoreSpec}), memory, or redis://HOST:PORT[/DB] for several mocks sharing it` },
  { flag: 'seed', env: 'SEED_FILE', type: 'string', placeholder: 'FILE', help: 'customers and companies to load at start, through the API (see examples/seed.json)' },
  { flag: 'seed-key', env: 'SEED_KEY', type: 'string', placeholder: 'KEY', help: 'the key of the partner a seed without keys is loaded for: a recording (--record), or { customers } with no apiKey' },
  { flag: 'admin-token', env: 'ADMIN_TOKEN', type: 'string', placeholder: 'TOKEN', help: 'require this token (header X-Mock-Admin-Token) on every /_mock/ route but the relay, from this machine too: for a mock shared on a network (default: none, the admin routes answering this machine only; with a --public-url that is not this machine, one made once, kept in the store and printed at start)' },
  { flag: 'environment', env: 'MOCK_ENVIRONMENT', type: 'string', placeholder: 'ENV', help: 'sandbox (default: dk_test_ keys, Sandbox operations) or production (dk_live_ keys)' },
  { flag: 'upstream', env: 'UPSTREAM', type: 'string', placeholder: 'URL', help: 'forward every API request to this server (the real sandbox), with the caller\'s own key, and check the request and the answer against the contract: a proxy (default: none, the mock answers)' },
  { flag: 'upstream-fallback', env: 'UPSTREAM_FALLBACK', type: 'string', placeholder: 'on|off', help: 'answer from the mock itself where the upstream lacks an operation (404 without the contract\'s E_NOT_FOUND, 501) or fails (unreachable, too slow, an answer over --upstream-max-body), marked x-mock-fallback (default off)' },
  { flag: 'upstream-requests', env: 'UPSTREAM_REQUESTS', type: 'string', placeholder: 'refuse|forward', help: 'what the proxy does with a request the contract refuses: answer 400 as the mock would, or forward it with its violations noted, in x-mock-request-violations and the journal (default refuse)' },
  { flag: 'upstream-timeout', env: 'UPSTREAM_TIMEOUT', type: 'string', placeholder: 'DURATION', help: 'how long the upstream may take to send its whole answer, head and body, before the proxy answers 504 (default 30s)' },
  { flag: 'upstream-max-body', env: 'UPSTREAM_MAX_BODY', type: 'string', placeholder: 'SIZE', help: `the most the proxy reads of an upstream's answer body, e.g. 64MiB; past it, the proxy hangs up and answers 502 E_BAD_GATEWAY (default ${asSize(contractFacts.documentMaxBytes)}: the largest document the contract allows)` },
  { flag: 'record', env: 'RECORD_FILE', type: 'string', placeholder: 'FILE', help: 'write the customers and companies the upstream answered with to FILE, a seed for --seed (no key is written: load it with --seed-key); FILE must not exist yet' },
  { flag: 'record-traffic', env: 'RECORD_TRAFFIC', type: 'string', placeholder: 'FILE', help: 'write every API request and its answer to FILE as recorded traffic, bodies whole up to the contract\'s body limit, keys left out, for npm run review -- --traffic FILE (as a mock, or with --upstream the sandbox\'s answers); FILE must not exist yet' },
  { flag: 'public-url', env: 'PUBLIC_URL', type: 'string', placeholder: 'URL', help: 'base URL clients use to reach the mock, for download links, relay URLs and the server of /openapi.json (default: the host each client used, when it is one the mock answers to, as localhost:PORT; else http://HOST:PORT); one that is not this machine (a tunnel) puts the mock on the internet, so its admin routes then ask for the admin token (see --admin-token)' },
  { flag: 'webhook-url', env: 'WEBHOOK_URL', type: 'string', placeholder: 'URL', help: 'where to POST webhook events (default: none; events are only journaled)' },
  { flag: 'webhook-allow', env: 'WEBHOOK_ALLOW', type: 'string', placeholder: 'LIST', help: 'where webhooks may go, for a mock others reach: hosts (hooks.example.com, *.example.com, localhost), addresses and networks (10.0.0.0/8, ::1), comma-separated; a name not listed is delivered to only at its addresses within the networks (default: anywhere)' },
  { flag: 'webhook-secret', env: 'WEBHOOK_SECRET', type: 'string', placeholder: 'whsec_…', help: 'signing secret (default: one made once and kept in the store, printed at start)' },
  { flag: 'webhook-retry-delays', env: 'WEBHOOK_RETRY_DELAYS', type: 'string', placeholder: 'LIST', help: `delays before each retry, e.g. 1s,5s,30s, or published for the contract's ${publishedRetryDelays} (default ${scaledDownRetryDelays}: as many retries, sooner)` },
  { flag: 'webhook-history', env: 'WEBHOOK_HISTORY', type: 'string', placeholder: 'N', help: 'webhook events and attempts each partner keeps (default 10000; on --store memory also the deliveries that may wait per partner); one partner never pushes out another\'s' },
  { flag: 'webhook-timeout', env: 'WEBHOOK_TIMEOUT', type: 'string', placeholder: 'DURATION', help: `how long a delivery attempt may take (default ${asDuration(published.webhooks.attemptTimeoutSeconds)}, as published)` },
  { flag: 'formation-timeline', env: 'FORMATION_TIMELINE', type: 'string', placeholder: 'MODE', help: 'auto (default: formations advance by themselves) or manual (only simulateCompanyFormation moves them)' },
  { flag: 'formation-step-delay', env: 'FORMATION_STEP_DELAY', type: 'string', placeholder: 'DURATION', help: 'delay before each automatic formation step (default 2s)' },
  { flag: 'api-keys', env: 'API_KEYS', type: 'string', placeholder: 'LIST', help: 'comma-separated keys to accept (default: any well-formed key of the environment, each its own partner)' },
  { flag: 'validate-responses', env: 'VALIDATE_RESPONSES', type: 'string', placeholder: 'on|off', help: 'check every response against the contract (default on; also switchable at run time)' },
  { flag: 'rate-limit', env: 'RATE_LIMIT', type: 'string', placeholder: 'N', help: `requests per second per key, with bursts as published (${published.rateLimits.sandbox.burst / published.rateLimits.sandbox.requestsPerSecond}× that), at most 500000 (default ${published.rateLimits.sandbox.requestsPerSecond} in sandbox, ${published.rateLimits.production.requestsPerSecond} in production)` },
  { flag: 'idempotency-ttl', env: 'IDEMPOTENCY_TTL', type: 'string', placeholder: 'DURATION', help: `how long idempotency keys are kept (default ${asDuration(published.idempotencyKeyRetentionSeconds)}, as published)` },
  { flag: 'idempotency-max-records', env: 'IDEMPOTENCY_MAX_RECORDS', type: 'string', placeholder: 'N', help: "idempotency records kept per partner, that partner's oldest dropped first (default 100000)" },
  { flag: 'body-memory', env: 'BODY_MEMORY', type: 'string', placeholder: 'SIZE', help: 'request body bytes held at once across all connections, e.g. 64MiB (default 32MiB, at least 16MiB: a seed\'s limit); a body past it is answered 503 with Retry-After' },
  { flag: 'journal-size', env: 'JOURNAL_SIZE', type: 'string', placeholder: 'SIZE', help: 'what the request journal may hold, e.g. 512KiB, 16MiB (default 16MiB); past it, the oldest requests of the partner most over its share (a 64th) go first' },
  { flag: 'unhandled-operations', env: 'UNHANDLED_OPERATIONS', type: 'string', placeholder: 'MODE', help: 'refuse (default: the mock does not start when the contract has an operation it has no handler for) or examples (answer those from the contract\'s examples, with Prism)' },
  { flag: 'headers-timeout', env: 'HEADERS_TIMEOUT', type: 'string', placeholder: 'DURATION', help: "how long a client may take to send a request's line and headers before it is answered 408 and disconnected (default 10s)" },
  { flag: 'request-timeout', env: 'REQUEST_TIMEOUT', type: 'string', placeholder: 'DURATION', help: 'how long a client may take to send a whole request, body included, before it is answered 408 and disconnected (default 30s; at least --headers-timeout)' },
  { flag: 'keep-alive-timeout', env: 'KEEP_ALIVE_TIMEOUT', type: 'string', placeholder: 'DURATION', help: 'how long an idle connection is kept open for the next request (default 65s: longer than the 60s of most proxies in front)' },
  { flag: 'max-streams', env: 'MAX_STREAMS', type: 'string', placeholder: 'N', help: `server-sent event streams (the request journal live) open at once, every partner's together, besides the ${maxStreamsPerScope} a partner may have; past them a stream is refused with 503 E_STREAM_LIMIT and Retry-After (default ${defaultStreams.maxStreams})` },
  { flag: 'stream-send-timeout', env: 'STREAM_SEND_TIMEOUT', type: 'string', placeholder: 'DURATION', help: `how long a stream's client may take none of what waits for it before the stream is closed, as nginx's send_timeout (default ${asDuration(defaultStreams.sendTimeoutMs / 1000)}, at most 24h)` },
  { flag: 'stream-max-age', env: 'STREAM_MAX_AGE', type: 'string', placeholder: 'DURATION', help: `how long a stream stays open before it is ended; its client reconnects with Last-Event-ID and misses nothing (default ${asDuration(defaultStreams.maxAgeMs / 1000)}, at most 24h)` },
  { flag: 'download-url-ttl', env: 'DOWNLOAD_URL_TTL', type: 'string', placeholder: 'DURATION', help: `how long document download URLs stay valid (default ${asDuration(published.downloadUrlValiditySeconds)}, as published)` },
  { flag: 'cors', env: 'CORS', type: 'string', placeholder: 'ORIGINS', help: "which web pages may call the API routes: * (default: any, for local prototyping), a comma-separated list of origins such as http://localhost:3000, or off. Admin routes never allow other sites" },
  { flag: 'log-level', env: 'LOG_LEVEL', type: 'string', placeholder: 'LEVEL', help: 'fatal, error, warn, info (default), debug, trace or silent' },
  { flag: 'log-format', env: 'LOG_FORMAT', type: 'string', placeholder: 'FORMAT', help: 'pretty (default on a terminal) or json (default otherwise)' },
  { flag: 'contract', env: 'CONTRACT_PATH', type: 'string', placeholder: 'FILE', help: 'the bundled contract to serve (default generated/openapi.json)' },
  { flag: 'docs', env: 'MOCK_DOCS', type: 'string', placeholder: 'built|live', help: 'the reference docs at /docs: built (default: generated/docs/index.html, as npm run generate writes them) or live (the contract being served, rendered in the browser with Redoc from node_modules, the open page following each reload of the contract: npm run dev)' },
  { flag: 'help', env: '', type: 'boolean', help: 'print this help and exit' },
];

/** The environment variables the mock reads, one per option: a launcher that owns the options clears them. */
export const optionVariables: readonly string[] = options.map((option) => option.env).filter((name) => name !== '');

/** How a user runs the mock, as its help shows it: `npm start --` in a clone, `npx @partner-formation/mock` from the package. */
export interface Invocation {
  command: string;
  /** Other ways, each shown on a line of its own. */
  alternatives?: string[];
  /** The other commands it runs, each a line: how to call it and what it does. */
  commands?: string[];
}

export function helpText(invocation: Invocation): string {
  const rows = options.map((option) => {
    const left = `  --${option.flag}${option.placeholder ? ` ${option.placeholder}` : ''}`;
    const env = option.env ? ` [${option.env}]` : '';
    return `${left.padEnd(38)}${option.help}${env}`;
  });
  return [
    `Usage: ${invocation.command} [options]`,
    ...(invocation.alternatives ?? []).map((alternative) => `   or: ${alternative} [options]`),
    ...(invocation.commands ?? []).map((command) => `   or: ${command}`),
    '',
    'The Partner Formation API mock: validates every request against the contract, keeps state per API key,',
    'advances formations and delivers signed webhooks. Admin routes are under /_mock/ (see README).',
    '',
    'Options (environment variable in brackets; a flag wins over its variable):',
    ...rows,
  ].join('\n');
}

export type ParsedCommandLine = { help: true } | { help: false; config: MockConfig };

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(options.map((option) => [option.flag, { type: option.type }])),
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}. Run with --help to see the options.`);
  }
  if (parsed.values.help) return { help: true };
  const value = (flag: string): string | undefined => {
    const fromFlag = parsed.values[flag];
    if (typeof fromFlag === 'string') return fromFlag;
    const option = options.find((o) => o.flag === flag);
    const fromEnv = option?.env ? env[option.env] : undefined;
    return fromEnv === '' ? undefined : fromEnv;
  };
  return { help: false, config: configFrom(value) };
}

/**
 * The mock's options given by name, as the flags are (`{ 'formation-timeline': 'manual' }`), where there is no command
 * line: the mock in process (app/in-process.ts). Each is checked as its flag is; a name that is no flag, or one
 * `refused` names (what has no meaning there), is refused with a ConfigError that says so.
 */
export function configOfOptions(given: Readonly<Record<string, string>>, refused: Readonly<Record<string, string>> = {}): MockConfig {
  for (const name of Object.keys(given)) {
    if (refused[name] !== undefined) throw new ConfigError(`the option ${JSON.stringify(name)} ${refused[name]}`);
    if (name === 'help' || !options.some((option) => option.flag === name)) throw new ConfigError(`${JSON.stringify(name)} is not an option of the mock: it takes ${options.filter((option) => option.flag !== 'help' && refused[option.flag] === undefined).map((option) => option.flag).join(', ')}`);
    if (typeof given[name] !== 'string') throw new ConfigError(`the option ${JSON.stringify(name)} takes a string, as its flag does (--${name}); got ${typeof given[name]}`);
  }
  return configFrom((flag) => given[flag]);
}

/** The configuration from each option's value by its flag's name (undefined: its default), every value checked. */
function configFrom(value: (flag: string) => string | undefined): MockConfig {
  const environment = oneOf(value('environment') ?? 'sandbox', 'environment', ['sandbox', 'production'] as const);
  let store: StoreSpec;
  try {
    store = parseStoreSpec(value('store') ?? defaultStoreSpec);
  } catch (error) {
    if (error instanceof StoreError) throw new ConfigError(error.message);
    throw error;
  }
  const secret = value('webhook-secret');
  if (secret !== undefined && !/^whsec_[A-Za-z0-9+/=]{16,}$/.test(secret)) {
    throw new ConfigError('--webhook-secret must be whsec_ followed by a base64 secret (at least 16 characters)');
  }
  const webhookAllow = value('webhook-allow');
  const allowed = webhookAllow === undefined ? undefined : fromFlag(() => allowedTargets(webhookAllow), 'webhook-allow');
  const webhookUrl = value('webhook-url');
  if (webhookUrl !== undefined) {
    const problem = endpointUrlProblem(webhookUrl, allowed);
    if (problem) throw new ConfigError(`--webhook-url ${JSON.stringify(maskEndpointUrl(webhookUrl))}: ${problem.message}`);
  }
  const publicUrl = value('public-url');
  if (publicUrl !== undefined) url(publicUrl, 'public-url');
  const upstreamUrl = value('upstream');
  if (upstreamUrl !== undefined) url(upstreamUrl, 'upstream');
  for (const flag of ['upstream-timeout', 'upstream-max-body', 'upstream-fallback', 'upstream-requests', 'record']) if (upstreamUrl === undefined && value(flag) !== undefined) throw new ConfigError(`--${flag} needs --upstream`);
  if (value('seed-key') !== undefined && value('seed') === undefined) throw new ConfigError('--seed-key needs --seed');
  const apiKeys = value('api-keys')?.split(',').map((key) => key.trim()).filter(Boolean);
  const prefix = environment === 'sandbox' ? 'dk_test_' : 'dk_live_';
  const foreign = apiKeys?.find((key) => !key.startsWith(prefix) || !wellFormedKey.test(key));
  if (foreign) throw new ConfigError(`--api-keys: ${foreign.slice(0, 12)}… is not a well-formed ${prefix} key for the ${environment} environment`);
  const headersTimeoutMs = positive(duration(value('headers-timeout') ?? '10s', 'headers-timeout'), 'headers-timeout');
  const requestTimeoutMs = positive(duration(value('request-timeout') ?? '30s', 'request-timeout'), 'request-timeout');
  // Node refuses a headers timeout longer than the request's; so does the mock, naming the flags.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`--headers-timeout (${headersTimeoutMs}ms) must not be longer than --request-timeout (${requestTimeoutMs}ms)`);

  return {
    port: integer(value('port') ?? '4010', 'port', 0, 65535),
    host: value('host') ?? '127.0.0.1',
    environment,
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    ...(upstreamUrl === undefined ? {} : { upstream: upstreamSettings(upstreamUrl, value) }),
    store,
    adminToken: adminToken(value('admin-token')),
    recordTraffic: value('record-traffic'),
    seedFile: value('seed'),
    seedKey: value('seed-key'),
    unhandledOperations: oneOf(value('unhandled-operations') ?? 'refuse', 'unhandled-operations', ['refuse', 'examples'] as const),
    webhookUrl,
    webhookAllow,
    webhookSecret: secret,
    webhookRetryDelaysMs: retryDelays(value('webhook-retry-delays') ?? scaledDownRetryDelays),
    webhookTimeoutMs: positive(duration(value('webhook-timeout') ?? asDuration(published.webhooks.attemptTimeoutSeconds), 'webhook-timeout'), 'webhook-timeout'),
    webhookHistoryPerPartner: integer(value('webhook-history') ?? '10000', 'webhook-history', 10, 10_000_000),
    formationTimeline: oneOf(value('formation-timeline') ?? 'auto', 'formation-timeline', ['auto', 'manual'] as const),
    formationStepDelayMs: duration(value('formation-step-delay') ?? '2s', 'formation-step-delay'),
    apiKeys: apiKeys?.length ? apiKeys : undefined,
    validateResponses: onOff(value('validate-responses') ?? 'on', 'validate-responses'),
    // At most 500000: bursts are twice the rate, and the contract bounds RateLimit-Remaining at 1000000.
    rateLimitPerSecond: integer(value('rate-limit') ?? String(published.rateLimits[environment].requestsPerSecond), 'rate-limit', 1, 500_000),
    idempotencyTtlMs: duration(value('idempotency-ttl') ?? asDuration(published.idempotencyKeyRetentionSeconds), 'idempotency-ttl'),
    idempotencyMaxRecords: integer(value('idempotency-max-records') ?? '100000', 'idempotency-max-records', 1, 100_000_000),
    journalMaxBytes: size(value('journal-size') ?? '16MiB', 'journal-size', 64 * 1024, 1024 ** 3),
    maxBodyBytes: published.requestBodyMaxBytes,
    bodyMemoryBytes: size(value('body-memory') ?? '32MiB', 'body-memory', 16 * 1024 * 1024, 1024 ** 3),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: positive(duration(value('keep-alive-timeout') ?? '65s', 'keep-alive-timeout'), 'keep-alive-timeout'),
    downloadUrlTtlMs: duration(value('download-url-ttl') ?? asDuration(published.downloadUrlValiditySeconds), 'download-url-ttl'),
    streams: streamSettings(value),
    logLevel: oneOf(value('log-level') ?? 'info', 'log-level', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    logFormat: oneOf(value('log-format') ?? (process.stdout.isTTY ? 'pretty' : 'json'), 'log-format', ['pretty', 'json'] as const),
    contractPath: value('contract') ?? defaultContractPath,
    docs: docsMode(value('docs') ?? 'built'),
    cors: corsOrigins(value('cors') ?? '*'),
  };
}

function upstreamSettings(upstreamUrl: string, value: (flag: string) => string | undefined): NonNullable<MockConfig['upstream']> {
  const maxBody = value('upstream-max-body');
  const record = value('record');
  return {
    url: upstreamUrl.replace(/\/+$/, ''),
    timeoutMs: positive(duration(value('upstream-timeout') ?? '30s', 'upstream-timeout'), 'upstream-timeout'),
    // By default what the contract sizes: an answer carries at most the largest document it allows.
    maxBodyBytes: maxBody === undefined ? contractFacts.documentMaxBytes : size(maxBody, 'upstream-max-body', 64 * 1024, 1024 ** 3),
    fallback: onOff(value('upstream-fallback') ?? 'off', 'upstream-fallback'),
    requests: oneOf(value('upstream-requests') ?? 'refuse', 'upstream-requests', ['refuse', 'forward'] as const),
    ...(record === undefined ? {} : { record }),
  };
}

function docsMode(raw: string): MockConfig['docs'] {
  const mode = oneOf(raw, 'docs', ['built', 'live'] as const);
  // Redoc's script comes with the kit's tools (a clone's node_modules), not with the mock's package.
  if (mode === 'live' && redocScriptPath() === undefined) throw new ConfigError(`--docs live renders the docs with the Redoc of @redocly/cli, which is not installed here: run it from a clone of the kit after npm ci, or use --docs built`);
  return mode;
}

function streamSettings(value: (flag: string) => string | undefined): StreamBounds {
  return {
    maxStreams: integer(value('max-streams') ?? String(defaultStreams.maxStreams), 'max-streams', 1, 100_000),
    sendTimeoutMs: timerDuration(value('stream-send-timeout'), defaultStreams.sendTimeoutMs, 'stream-send-timeout'),
    maxAgeMs: timerDuration(value('stream-max-age'), defaultStreams.maxAgeMs, 'stream-max-age'),
  };
}

function retryDelays(raw: string): number[] {
  if (raw === 'published') return published.webhooks.retryScheduleSeconds.map((seconds) => seconds * 1000);
  return raw.split(',').map((item) => duration(item.trim(), 'webhook-retry-delays'));
}

function corsOrigins(raw: string): MockConfig['cors'] {
  if (raw === '*') return { origins: '*' };
  if (raw === 'off') return { origins: [] };
  const origins = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    // An origin is exactly scheme://host[:port], as browsers send it in Origin: no path, no trailing slash.
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin) {
      throw new ConfigError(`--cors takes *, off, or origins such as http://localhost:3000 (scheme, host and port, nothing more); got ${JSON.stringify(origin)}`);
    }
  }
  return { origins };
}

function oneOf<const T extends readonly string[]>(raw: string, name: string, allowed: T): T[number] {
  if (!allowed.includes(raw)) throw new ConfigError(`--${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}`);
  return raw as T[number];
}

/** What `parse` makes of a flag's value; its RangeError becomes the flag's ConfigError. */
function fromFlag<T>(parse: () => T, name: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof RangeError) throw new ConfigError(`--${name}: ${error.message}`);
    throw error;
  }
}

function integer(raw: string, name: string, min: number, max: number): number {
  const number = Number(raw);
  if (!/^\d+$/.test(raw) || number < min || number > max) throw new ConfigError(`--${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(raw)}`);
  return number;
}

// The dispatcher refuses a zero timeout too, but only once the mock starts, and without naming the flag.
function positive(milliseconds: number, name: string): number {
  if (milliseconds <= 0) throw new ConfigError(`--${name} must be at least 1ms; got ${milliseconds}ms`);
  return milliseconds;
}

function onOff(raw: string, name: string): boolean {
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`--${name} must be on or off; got ${JSON.stringify(raw)}`);
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `250ms`, `1.5s`, `5m`, `24h`: a number and its unit. */
export function duration(raw: string, name: string): number {
  // The unit is required: `20` could mean 20 ms or 20 s, and a wrong guess is a mock 1000 times too slow or fast.
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(raw);
  if (!match) throw new ConfigError(`--${name} must be a duration with its unit (ms, s, m or h), such as 500ms, 2s, 5m or 24h; got ${JSON.stringify(raw)}`);
  return Math.round(Number(match[1]) * (units[match[2] as string] as number));
}

/** A duration a timer waits, from a second to a day (Node's timers take at most about 24 days, and fire at once past it). */
function timerDuration(raw: string | undefined, fallbackMs: number, name: string): number {
  if (raw === undefined) return fallbackMs;
  const milliseconds = duration(raw, name);
  if (milliseconds < 1000 || milliseconds > 86_400_000) throw new ConfigError(`--${name} must be from 1s to 24h; got ${JSON.stringify(raw)}`);
  return milliseconds;
}

/** `65536`, `512KiB`, `16MiB`, `1GiB`, between `min` and `max` bytes. */
function size(raw: string, name: string, min: number, max: number): number {
  const match = /^(\d+)(B|KiB|MiB|GiB)?$/.exec(raw);
  const bytes = match ? Number(match[1]) * (sizeUnits[match[2] ?? 'B'] as number) : Number.NaN;
  if (!(bytes >= min && bytes <= max)) throw new ConfigError(`--${name} must be a size from ${asSize(min)} to ${asSize(max)}, such as 512KiB or 16MiB; got ${JSON.stringify(raw)}`);
  return bytes;
}

function adminToken(raw: string | undefined): string | undefined {
  if (raw !== undefined && !/^[!-~]{16,256}$/.test(raw)) throw new ConfigError('--admin-token must be 16 to 256 visible ASCII characters');
  return raw;
}


function url(raw: string, name: string): void {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`--${name} must be an absolute http(s) URL; got ${JSON.stringify(raw)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`--${name} must be an http(s) URL; got ${JSON.stringify(raw)}`);
}
