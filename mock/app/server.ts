/**
 * Builds the mock from its configuration and serves it over HTTP: the store, the features on it (services.ts),
 * and three channels a request can take by its path, each a pipeline whose answers `sendAnswer` writes: the served
 * documents (`/docs`, `/openapi.json`, `/CHANGELOG.md`), the admin API (`/_mock/…`) and the API (everything else).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createAdminGuard, type AdminToken } from '../admin/admin-guard.ts';
import { createAdminChannel, isAdminPath } from '../admin/admin-api.ts';
import type { MockConfig } from '../config/config.ts';
import { createProtocolGuard } from '../http/client-error.ts';
import { parseRequestTarget } from '../http/request-target.ts';
import { createEventStreams, type EventStreams } from '../http/event-streams.ts';
import { writeAnswer } from '../http/write-answer.ts';
import { errorAnswer } from '../http/answer.ts';
import { serveRequest, type Channel } from '../pipeline/send-answer.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { createApiChannel } from './api-channel.ts';
import { createServices, type Overrides, type Services } from './services.ts';
import { servedDocuments } from '../served-documents/served-documents.ts';
import { applySeed, type SeedReport } from '../seed/seed.ts';

export interface RunningMock {
  url: string;
  config: MockConfig;
  store: Store;
  /** Applies a seed document (`--seed FILE`), all or nothing. */
  seed: (document: unknown, defaultApiKey?: string) => Promise<SeedReport>;
  /** The webhook signing secret in use: the configured one, or the one kept in the store. */
  webhookSecret: string;
  /** The token the admin routes require: `--admin-token`, or the one made for a `--public-url` others reach. */
  adminToken: AdminToken | undefined;
  close(): Promise<void>;
}

/** How long a shutdown waits for requests in flight before it closes their connections. */
const shutdownGraceMs = 5_000;

export async function startMock(config: MockConfig, logger: Logger, overrides: Overrides = {}): Promise<RunningMock> {
  const store = await openStore(config.store);
  let services: Services | undefined;
  try {
    services = await createServices(config, logger, store, overrides);
    return await serve(config, logger, services);
  } catch (error) {
    // Nothing may keep running on a store about to be closed.
    await services?.stopWork();
    await store.close();
    throw error;
  }
}

async function serve(config: MockConfig, logger: Logger, services: Services): Promise<RunningMock> {
  let baseUrl = config.publicUrl ?? '';
  let selfUrl = '';
  const documents = servedDocuments(services.contract, () => baseUrl, config.environment);
  const seed = (document: unknown, defaultApiKey?: string) =>
    applySeed(document, { baseUrl: selfUrl, sandbox: config.environment === 'sandbox', validatorOf: services.requestValidatorOf, ...(defaultApiKey === undefined ? {} : { defaultApiKey }) });
  const admin = await createAdminChannel({
    guard: createAdminGuard({ adminToken: services.adminToken, hosts: [config.host, ...(config.publicUrl ? [new URL(config.publicUrl).hostname] : [])] }),
    keys: services.keys,
    bodyBudget: services.bodyBudget,
    rate: { perSecond: config.rateLimitPerSecond, environment: config.environment },
    logger,
    services: { ...services.admin, selfUrl: () => selfUrl, seed },
  });
  const api = createApiChannel(config, logger, services, () => baseUrl);
  const channelOf = (pathname: string): Channel => (documents.serves(pathname) ? documents : isAdminPath(pathname) ? admin : api);
  // Every stream this server writes, whatever its route, within the same bounds.
  const streams = createEventStreams(config.streams, logger.child({ component: 'streams' }));
  const server = listenOn(config, logger, (request, response) => {
    const url = parseRequestTarget(request.url);
    return serveRequest(channelOf(url.pathname), request, response, url, logger, streams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  baseUrl = config.publicUrl ?? url;
  selfUrl = url;
  let closed: Promise<void> | undefined;
  return {
    url,
    config,
    store: services.store,
    seed,
    webhookSecret: services.webhookSecret,
    adminToken: services.adminToken,
    close: () => (closed ??= shutDown(server, streams, logger, services)),
  };
}

function listenOn(config: MockConfig, logger: Logger, handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>) {
  const protocol = createProtocolGuard(logger);
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // Node looks for requests past their timeouts every 30 s by default: a 10 s limit could then hold 40 s.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
      // Checked by the protocol guard instead, which answers with the envelope rather than Node's bare 400.
      requireHostHeader: false,
    },
    protocol.guard((request, response) => {
      void handle(request, response).catch((error: unknown) => {
        logger.error({ err: error }, 'request failed outside the pipeline');
        if (response.headersSent) return void response.end();
        writeAnswer({ response }, errorAnswer(500, { code: 'E_INTERNAL', message: 'An unexpected error occurred.', requestId: 'unknown' }), request.method ?? 'GET');
      });
    }),
  );
  // Refusals before routing (malformed framing, headers over 16 KiB, too slow, an unmet Expect) carry the envelope.
  server.on('clientError', protocol.clientError);
  server.on('checkExpectation', protocol.checkExpectation);
  return server;
}

async function shutDown(server: ReturnType<typeof createServer>, streams: EventStreams, logger: Logger, services: Services): Promise<void> {
  await new Promise<void>((resolve) => {
    // A client that keeps a request open must not hold the shutdown: requests in flight get a grace period.
    const deadline = setTimeout(() => {
      logger.warn({ graceMs: shutdownGraceMs }, 'closing the connections still open after the grace period');
      server.closeAllConnections();
    }, shutdownGraceMs);
    // A stream never ends by itself: ended first, its connection is then closed like any other.
    streams.endAll();
    server.close(() => {
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
  await services.stopWork();
  await services.journal.flush();
  await services.store.close();
}
