/**
 * The mock in process: the same services and channels the server runs (channels.ts), over a store it is given (the
 * memory store unless told otherwise), answering Fetch API `Request`s with `Response`s (`handle`), with no port and
 * no socket. Mock Service Worker's handlers call it (package/msw.ts), in Node, in jsdom and in a browser's service
 * worker; so can a test directly. The node:http server (server.ts) is the other adapter of the same pipeline.
 *
 * What a wire would carry is mapped as HTTP does (http/fetch-request.ts): the Host is the URL's, the caller is this
 * machine (loopback), nothing is compressed. What the server reads from files (the contract, the admin contract) may
 * be given instead, for a browser; the documents it serves beside the API (`/docs`, `/openapi.json`) are not served
 * here. Webhooks are delivered by `deliver` (the handlers a test registers), in place of `fetch`.
 */
import type { Logger } from 'pino';
import type { ContractDocument } from '../../contract-model/document.ts';
import { configOfOptions, type MockConfig } from '../config/config.ts';
import { createInProcessLogger } from '../config/logger.ts';
import { FetchAnswerWriter, InProcessStreams } from '../http/fetch-answer.ts';
import { RequestAborted } from '../http/cut-short.ts';
import { FetchRequest } from '../http/fetch-request.ts';
import { linkBase, ownHosts } from '../http/own-hosts.ts';
import { parseRequestTarget } from '../http/request-target.ts';
import { serveRequest } from '../pipeline/send-answer.ts';
import { openMemoryStore } from '../store/memory/memory-store.ts';
import type { Store } from '../store/store.ts';
import { assembleChannels, type Channels } from './channels.ts';
import { createServices, type Services } from './services.ts';

/** Where the default webhook endpoint's deliveries are addressed: a name that never resolves (RFC 6761), since `deliver` takes them. */
export const inProcessWebhookUrl = 'http://webhooks.in-process.invalid/webhooks';

/** Options that have no meaning in process, and why. */
const notInProcess: Readonly<Record<string, string>> = {
  port: 'has no meaning in process: nothing listens',
  host: 'has no meaning in process: nothing listens (the base URL names the host)',
  store: 'is not taken in process: pass a store, or the memory store is used',
  upstream: 'is not taken in process: the mock as a proxy runs as a server (npm start -- --upstream)',
  record: 'needs --upstream, which runs as a server',
  'public-url': 'is not taken in process: links are made with the origin each request was sent to (the base URL)',
  seed: 'is not taken in process: seed it with seed(document)',
  'seed-key': 'is not taken in process: seed it with seed(document, apiKey)',
  'webhook-url': 'is not taken in process: webhooks go to the handlers registered with onWebhook',
  'webhook-allow': 'is not taken in process: webhooks go to the handlers registered with onWebhook',
  'log-format': 'is not taken in process: lines go to the test output, or the console in a browser',
  contract: 'is not taken in process: pass the contract document',
  docs: 'is not taken in process: the reference docs are not served there',
  'unhandled-operations': 'is not taken in process: every operation of the contract has its handler',
  'admin-token': 'is not taken in process: the admin routes answer this process',
};

export interface InProcessOptions {
  /** The origin the app calls the API at (`https://sandbox.api.partner-formation.example`): links are made with it. */
  baseUrl: string;
  /** The mock's options by flag name, as `--help` lists them (`{ 'formation-timeline': 'manual' }`), checked as the flags are. */
  options?: Readonly<Record<string, string>>;
  store?: Store;
  contract?: ContractDocument;
  adminContract?: ContractDocument;
  logger?: Logger;
  /** Delivers a webhook, as `fetch` would to its endpoint. */
  deliver?: typeof fetch;
}

export interface InProcessMock {
  readonly baseUrl: string;
  readonly config: MockConfig;
  readonly services: Services;
  /** Answers a request to the API or its admin routes, through the pipeline the server runs. */
  handle(request: Request): Promise<Response>;
  /** Applies a seed document through the API, all or nothing (as `POST /_mock/seed`). */
  seed: Channels['seed'];
  /** Stops its work (the formation timeline, deliveries), ends its streams, writes its journal; the store is the caller's when given. */
  close(): Promise<void>;
}

export async function startInProcessMock(options: InProcessOptions): Promise<InProcessMock> {
  const base = new URL(options.baseUrl);
  const config: MockConfig = {
    // Silent unless asked: the journal (`requests()`) holds every exchange, and a test's output is its own.
    ...configOfOptions({ 'log-level': 'silent', ...options.options }, notInProcess),
    store: { kind: 'memory' },
    host: base.hostname,
    webhookUrl: inProcessWebhookUrl,
  };
  const logger = options.logger ?? createInProcessLogger(config.logLevel);
  const store = options.store ?? openMemoryStore();
  const services = await createServices(config, logger, store, {
    ...(options.contract ? { contract: options.contract } : {}),
    ...(options.deliver ? { deliver: options.deliver } : {}),
  });
  const streams = new InProcessStreams();
  let channels: Channels | undefined;
  const handle = async (request: Request): Promise<Response> => {
    const target = new URL(request.url);
    const url = parseRequestTarget(`${target.pathname}${target.search}`);
    const writer = new FetchAnswerWriter(streams);
    const incoming = await FetchRequest.of(request, target).catch((error: unknown) => {
      if (error instanceof RequestAborted) return undefined;
      throw error;
    });
    if (incoming) await serveRequest((channels as Channels).channelOf(url.pathname), incoming, writer, url, logger);
    // A request the pipeline does not answer (its body broke off before it was whole) is a network error to its caller.
    return writer.response ?? Response.error();
  };
  channels = await assembleChannels({
    config, logger, services, seedFetch: handle, selfUrl: () => base.origin, hosts: [base.hostname],
    links: linksFollowing(base),
    ...(options.adminContract ? { adminContract: options.adminContract } : {}),
  });
  const assembled = channels;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: base.origin,
    config,
    services,
    handle,
    seed: (document, defaultApiKey) => assembled.seed(document, defaultApiKey),
    close: () =>
      (closed ??= (async () => {
        streams.endAll();
        await services.stopWork();
        await services.journal.flush();
        if (!options.store) await store.close();
      })()),
  };
}

/**
 * Links follow the host a request was sent to, as the server's do (http/own-hosts.ts): the base URL for a request to
 * it (its scheme kept: an app served over https gets https links), the host itself for another of the mock's names
 * (`handle` given `http://localhost:4010/…`), the base URL for any other.
 */
function linksFollowing(base: URL): (host: string | undefined) => string {
  const others = linkBase({ hosts: ownHosts([]), listening: () => base.origin });
  return (host) => (host === undefined || host.toLowerCase() === base.host ? base.origin : others(host));
}
