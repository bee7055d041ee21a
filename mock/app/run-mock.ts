/**
 * The mock as a command: reads the configuration, starts the mock, seeds it, prints where it is, and shuts down
 * cleanly. Its entries (mock/main.ts for `npm start`, mock/package/main.ts for the package) say how it is run, for
 * its help.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError, helpText, parseConfig, type Invocation } from '../config/config.ts';
import { createLogger } from '../config/logger.ts';
import { readJsonText } from '../http/json-text.ts';
import { SeedError } from '../seed/seed.ts';
import { maskStoreUrl } from '../store/open-store.ts';
import { StoreError } from '../store/store-error.ts';
import { maskEndpointUrl } from '../webhooks/endpoint-url.ts';
import type { Logger } from 'pino';
import { startMock, type RunningMock } from './server.ts';

/** Runs the mock until it is stopped; a refusal or a failure sets the exit code. */
export function runMock(invocation: Invocation): Promise<void> {
  return main(invocation).catch((error: unknown) => {
    const message = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `the port is already in use (${(error as Error).message}); pick another with --port` : (error as Error).stack;
    console.error(`error: ${message}`);
    process.exitCode = 1;
  });
}

async function main(invocation: Invocation): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) return refuse(error.message);
    throw error;
  }
  if (parsed.help) {
    console.log(helpText(invocation));
    return;
  }
  const { config } = parsed;
  const logger = await createLogger(config);
  let mock: RunningMock;
  try {
    mock = await startMock(config, logger);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StoreError) return refuse(error.message);
    throw error;
  }
  if (config.seedFile !== undefined) {
    const problem = await seedFromFile(config.seedFile, mock, config.seedKey, logger);
    if (problem) {
      await mock.close();
      return refuse(problem);
    }
  }
  // Shown whatever the level (but silent): it says where the mock listens, which launchers read (with --port 0).
  const announcer = config.logLevel === 'silent' ? logger : logger.child({}, { level: 'info' });
  const shown = asPeopleWriteIt(mock.url);
  announcer.info(
    {
      url: mock.url,
      environment: config.environment,
      store: maskStoreUrl(mock.store.description),
      docs: `${shown}/docs`,
      console: `${shown}/_mock/console`,
      webhookUrl: config.webhookUrl === undefined ? null : maskEndpointUrl(config.webhookUrl),
      upstream: config.upstream === undefined ? null : maskEndpointUrl(config.upstream.url),
      formationTimeline: config.formationTimeline,
      validateResponses: config.validateResponses,
      // Since the process started: module loading included.
      startupMs: Math.round(performance.now()),
    },
    `Partner Formation API mock (${config.environment}) listening on ${shown} (console: ${shown}/_mock/console)`,
  );
  // Listening on an address other machines reach (0.0.0.0, a LAN address): the admin guard then refuses them.
  if (mock.adminToken === undefined && !/^(127\.|::1$|localhost$)/i.test(config.host)) {
    announcer.warn(
      { host: config.host },
      'listening beyond this machine without --admin-token: other machines get the API, but the admin routes and the console answer this machine only; pass --admin-token to share them',
    );
  }
  // Out at once, and before anything printed after them: lines are otherwise written a few KiB at a time (JSON) or
  // by a worker thread (on a terminal), and whoever started the mock waits for them.
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  if (config.webhookSecret === undefined && config.webhookUrl !== undefined) {
    // Printed, not logged: a receiver needs it to verify signatures. It is kept in the store, so it stays the same
    // across restarts on the same store, and every replica signs with it.
    console.log(`Webhook signing secret (kept in the store; pass --webhook-secret to choose one): ${mock.webhookSecret}`);
  }
  if (mock.adminToken?.made) {
    // Printed, not logged, for the same reason: the console and scripts need it, and it is made, not chosen.
    console.log(`Admin token (--public-url reaches this mock from beyond this machine, so the admin routes and the console ask for it; kept in the store, pass --admin-token to choose one): ${mock.adminToken.value}`);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void mock.close().then(() => logger.flush?.());
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (process.send) answerTheParent(mock, logger, () => stop('its parent process exited'));
}

/**
 * The URL as the README and a browser write it: `localhost` for the loopback address the mock listens on by default
 * (`url` in the start line keeps the address itself, for launchers).
 */
function asPeopleWriteIt(url: string): string {
  return url.replace(/^http:\/\/127\.0\.0\.1:/, 'http://localhost:');
}

/**
 * Started by a parent with an IPC channel (`npm run dev`), the mock tells it where it listens, `{ type: 'listening',
 * url }`; reads its contract again when asked, `{ type: 'reload-contract' }` (on each save), and answers
 * `{ type: 'contract-reloaded', operations, reloadMs }` or `{ type: 'contract-refused', message }` (the contract
 * before goes on serving); and stops when its parent exits, rather than holding its port for nobody.
 */
function answerTheParent(mock: RunningMock, logger: Logger, stop: () => void): void {
  process.send?.({ type: 'listening', url: mock.url });
  process.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type !== 'reload-contract') return;
    const started = performance.now();
    mock.reloadContract().then(
      ({ operations }) => {
        const reloadMs = Math.round(performance.now() - started);
        logger.info({ contract: mock.config.contractPath, operations, reloadMs }, 'contract reloaded: served from the next request on');
        process.send?.({ type: 'contract-reloaded', operations, reloadMs });
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        logger.error({ contract: mock.config.contractPath, problem: message }, 'contract not reloaded: the one before goes on serving');
        process.send?.({ type: 'contract-refused', message });
      },
    );
  });
  process.once('disconnect', stop);
  // The channel alone must not keep a stopped mock running.
  process.channel?.unref();
}

/** Applies the seed file, read as the API reads a body (I-JSON); returns what is wrong with it, to refuse the start with. */
async function seedFromFile(path: string, mock: RunningMock, defaultApiKey: string | undefined, logger: { info(obj: object, msg: string): void }): Promise<string | undefined> {
  let text;
  try {
    text = readJsonText(await readFile(path));
  } catch (error) {
    return `--seed ${path}: ${(error as Error).message}`;
  }
  if (text.kind === 'malformed') return `--seed ${path}: not valid JSON: ${text.problem}`;
  const document = text.value;
  try {
    const report = await mock.seed(document, defaultApiKey);
    logger.info({ seed: path, ...report }, 'seeded');
    return undefined;
  } catch (error) {
    if (!(error instanceof SeedError)) throw error;
    return [`--seed ${path}: ${error.message}`, ...error.details.map((detail) => `  ${detail.field || '/'}: ${detail.code} ${detail.message}`)].join('\n');
  }
}

function refuse(message: string): void {
  console.error(`error: ${message}`);
  process.exitCode = 2;
}
