/**
 * Builds the mock from its configuration and serves it over HTTP: the store, the features on it (services.ts),
 * and three channels a request can take by its path, each a pipeline whose answers `sendAnswer` writes: the served
 * documents (`/docs`, `/openapi.json`, `/CHANGELOG.md`), the admin API (`/_mock/…`) and the API (everything else).
 *
 * The contract can be read again while the mock runs (`reloadContract`, which `npm run dev` asks for on each save):
 * new services and channels are built on the same store and take every request from then on, on the same port,
 * with nothing refused meanwhile; the ones they replace finish the requests they began, then stop their work.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { AdminToken } from '../admin/admin-guard.ts';
import type { MockConfig } from '../config/config.ts';
import { createProtocolGuard } from '../http/client-error.ts';
import { linkBase, ownHosts } from '../http/own-hosts.ts';
import { parseRequestTarget } from '../http/request-target.ts';
import { createEventStreams, type EventStreams } from '../http/event-streams.ts';
import { NodeRequest } from '../http/node-request.ts';
import { NodeAnswerWriter, writeAnswer } from '../http/write-answer.ts';
import { errorAnswer } from '../http/answer.ts';
import { serveRequest, type Channel } from '../pipeline/send-answer.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { assembleChannels } from './channels.ts';
import { createServices, type Overrides, type Services } from './services.ts';
import { servedDocuments } from '../served-documents/served-documents.ts';
import type { SeedReport } from '../seed/seed.ts';

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
  /**
   * Reads the contract (`--contract`) again and serves it from the next request on, keeping the port, the store and
   * its data, faults armed and settings switched. Rejects, saying why, when the contract cannot be served: the one
   * before then goes on serving.
   */
  reloadContract(): Promise<{ operations: number }>;
  close(): Promise<void>;
}

/** How long a shutdown waits for requests in flight before it closes their connections. */
const shutdownGraceMs = 5_000;

export async function startMock(config: MockConfig, logger: Logger, overrides: Overrides = {}): Promise<RunningMock> {
  const store = await openStore(config.store);
  let services: Services | undefined;
  try {
    services = await createServices(config, logger, store, overrides);
    return await serve(config, logger, services, overrides);
  } catch (error) {
    // Nothing may keep running on a store about to be closed.
    await services?.stopWork();
    await store.close();
    throw error;
  }
}

/** The channels over one set of services: what answers requests until a reload puts others in their place. */
interface Served {
  services: Services;
  channelOf(pathname: string): Channel;
  seed: RunningMock['seed'];
  /** The responses begun on these channels and not yet closed. */
  open: Set<ServerResponse>;
}

async function serve(config: MockConfig, logger: Logger, first: Services, overrides: Overrides): Promise<RunningMock> {
  let selfUrl = '';
  const hosts = [config.host, ...(config.publicUrl ? [new URL(config.publicUrl).hostname] : [])];
  const links = linkBase({ ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }), hosts: ownHosts(hosts), listening: () => selfUrl });
  const assemble = async (services: Services): Promise<Served> => {
    const documents = servedDocuments(services.contract, links, config);
    const channels = await assembleChannels({ config, logger, services, links, hosts, selfUrl: () => selfUrl, documents });
    return { services, ...channels, open: new Set() };
  };
  let current = await assemble(first);
  // Every stream this server writes, whatever its route and whichever contract, within the same bounds.
  const streams = createEventStreams(config.streams, logger.child({ component: 'streams' }));
  const server = listenOn(config, logger, (request, response) => {
    // A request is answered whole by the channels it began on, even when a reload puts others in their place meanwhile.
    const served = current;
    served.open.add(response);
    response.once('close', () => served.open.delete(response));
    const url = parseRequestTarget(request.url);
    return serveRequest(served.channelOf(url.pathname), new NodeRequest(request), new NodeAnswerWriter(response, streams), url, logger);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  selfUrl = url;
  // One reload at a time, each after the one before has retired what it replaced; the shutdown after them all.
  let reloads: Promise<unknown> = Promise.resolve();
  const reloadContract = () => {
    const reloaded = reloads.then(async () => {
      const services = await createServices(config, logger, first.store, overrides, current.services).catch((error: unknown) => {
        throw new Error(`the contract at ${config.contractPath} cannot be served: ${(error as Error).message}`, { cause: error });
      });
      const next = await assemble(services).catch(async (error: unknown) => {
        await services.stopWork();
        throw error;
      });
      const previous = current;
      current = next;
      return { operations: services.operations.length, retired: retire(previous, streams, logger) };
    });
    reloads = reloaded.then(({ retired }) => retired).catch(() => undefined);
    return reloaded.then(({ operations }) => ({ operations }));
  };
  let closed: Promise<void> | undefined;
  return {
    url,
    config,
    store: first.store,
    seed: (document, defaultApiKey) => current.seed(document, defaultApiKey),
    webhookSecret: first.webhookSecret,
    adminToken: first.adminToken,
    reloadContract,
    close: () => (closed ??= reloads.then(() => shutDown(server, streams, logger, current.services))),
  };
}

/**
 * Takes services out of use once others answer in their place: their streams (the journal's live feed, the live
 * docs' events) are ended, so that their clients come back to the new ones; the requests they began may finish,
 * for as long as a shutdown would wait; then their work (formation steps, deliveries) stops and their journal is
 * written. Meanwhile both sets of services may run work on the store, which each takes under a claim, as replicas do.
 */
async function retire(served: Served, streams: EventStreams, logger: Logger): Promise<void> {
  streams.endWhere((response) => served.open.has(response));
  const finished = await settledWithin(served.open, shutdownGraceMs);
  if (!finished) logger.warn({ graceMs: shutdownGraceMs, requests: served.open.size }, 'contract reloaded while requests were still running past the grace period: they finish on the services being stopped');
  await served.services.stopWork();
  await served.services.journal.flush();
}

/** Whether every response of `open` closed within `ms`. */
function settledWithin(open: Set<ServerResponse>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (settled: boolean) => {
      clearTimeout(timer);
      for (const response of open) response.off('close', check);
      resolve(settled);
    };
    const check = () => open.size === 0 && done(true);
    const timer = setTimeout(() => done(false), ms);
    for (const response of open) response.once('close', check);
    check();
  });
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
