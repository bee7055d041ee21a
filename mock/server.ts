/**
 * Builds the mock from its configuration: the contract, the store, the pipeline every request walks, the
 * handlers, the formation timeline and the webhook dispatcher; and serves it over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadContract, maxItemsOf } from '../contract-model/document.ts';
import { listOperations, listWebhooks } from '../contract-model/operations.ts';
import { perOperation } from '../contract-model/per-operation.ts';
import { compileResponseValidator } from '../contract-model/response-validator.ts';
import { createRouter } from '../contract-model/router.ts';
import { createSchemaCompiler } from '../contract-model/schema-compiler.ts';
import { createAdminGuard } from './admin/admin-guard.ts';
import { createMockRoutes } from './admin/admin-api.ts';
import { createFaultRegistry } from './admin/faults.ts';
import { createRequestJournal } from './admin/request-journal.ts';
import { createKeyChecker } from './auth/api-keys.ts';
import { ConfigError, newWebhookSecret, type MockConfig } from './config.ts';
import { createDownloadUrlSigner } from './documents/signed-url.ts';
import { createDocumentFactory } from './formation/document-factory.ts';
import { createFormationEngine } from './formation/formation-engine.ts';
import { createCursorCodec } from './http/cursor.ts';
import { createProtocolGuard } from './http/client-error.ts';
import { createAnswerFinaliser } from './http/finalise-answer.ts';
import { composePipeline } from './http/pipeline.ts';
import { parseRequestTarget } from './http/request-target.ts';
import { serveExchange } from './http/serve-exchange.ts';
import { createEventPortal } from './portal/events.ts';
import { createSettingsRegistry } from './admin/settings.ts';
import { createWebhookEndpointPortal } from './portal/webhook-endpoints.ts';
import { companyHandlers } from './resources/companies/company-handlers.ts';
import { customerHandlers } from './resources/customers/customer-handlers.ts';
import { documentHandlers } from './resources/documents/document-handlers.ts';
import type { Handlers } from './resources/handler.ts';
import { referenceHandlers } from './resources/reference/reference-handlers.ts';
import { sandboxHandlers } from './resources/sandbox/sandbox-handlers.ts';
import { assignRequestId } from './steps/assign-request-id.ts';
import { authenticate } from './steps/authenticate.ts';
import { dispatch } from './steps/dispatch.ts';
import { enforceIdempotency } from './steps/enforce-idempotency.ts';
import { gateSandboxOperations } from './steps/gate-sandbox-operations.ts';
import { injectFaults } from './steps/inject-faults.ts';
import { allowCrossOrigin } from './steps/allow-cross-origin.ts';
import { limitRate } from './steps/limit-rate.ts';
import { readBody, refuseMalformedJson } from './steps/read-body.ts';
import { recordExchange } from './steps/record-exchange.ts';
import { routeRequest } from './steps/route-request.ts';
import { validateRequest } from './steps/validate-request.ts';
import { openStore } from './store/open-store.ts';
import { defaultStoreOptions, type Store } from './store/store.ts';
import { createPrismEngine } from './validation/prism-engine.ts';
import { compileRequestValidator } from './validation/request-validator.ts';
import { createWebhookDispatcher } from './webhooks/index.ts';

export interface RunningMock {
  url: string;
  config: MockConfig;
  store: Store;
  /** The webhook signing secret in use: the configured one, or the one kept in the store. */
  webhookSecret: string;
  close(): Promise<void>;
}

export async function startMock(config: MockConfig, logger: Logger, overrides: { handlers?: Partial<Handlers> } = {}): Promise<RunningMock> {
  const store = await openStore(config.store, {
    ...defaultStoreOptions,
    idempotencyTtlMs: config.idempotencyTtlMs,
    idempotencyMaxRecordsPerPartner: config.idempotencyMaxRecords,
    journalMaxBytes: config.journalMaxBytes,
    onDroppedEvent: (event) => logger.error({ ...event, maxQueuedEvents: defaultStoreOptions.memoryMaxQueuedEvents }, 'webhook event dropped: too many events waiting for delivery'),
  });
  try {
    return await serve(config, logger, overrides, store);
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** How long a shutdown waits for requests in flight before it closes their connections. */
const shutdownGraceMs = 5_000;

async function serve(config: MockConfig, logger: Logger, overrides: { handlers?: Partial<Handlers> }, store: Store): Promise<RunningMock> {
  const contract = await loadContract(config.contractPath);
  const operations = listOperations(contract);
  const compiler = createSchemaCompiler(contract);
  const requestValidatorOf = perOperation(operations, (op) => compileRequestValidator(contract, op, compiler));
  const responseValidatorOf = perOperation(operations, (op) => compileResponseValidator(contract, op, compiler));
  const settings = createSettingsRegistry({ validateResponses: config.validateResponses });
  // Kept in the store, so that cursors and download URLs stay valid across a restart and on every replica.
  const secret = (name: string) => store.secret(name, () => randomBytes(32).toString('base64'));
  const cursors = createCursorCodec(Buffer.from(await secret('cursor-key'), 'base64'));
  const signer = createDownloadUrlSigner({ secret: Buffer.from(await secret('download-url-key'), 'base64'), ttlSeconds: Math.max(1, Math.round(config.downloadUrlTtlMs / 1000)) });
  const webhookSecret = config.webhookSecret ?? (await store.secret('webhook-secret', newWebhookSecret));
  const dispatcher = createWebhookDispatcher({
    store,
    endpointUrl: config.webhookUrl,
    secret: webhookSecret,
    retryDelaysMs: config.webhookRetryDelaysMs,
    attemptTimeoutMs: config.webhookTimeoutMs,
    logger: logger.child({ component: 'webhooks' }),
  });
  const formation = createFormationEngine({
    store,
    destinations: dispatcher,
    documents: createDocumentFactory(config.environment),
    timeline: { mode: config.formationTimeline, stepDelayMs: config.formationStepDelayMs },
    now: () => new Date(),
    logger: logger.child({ component: 'formation' }),
  });
  const now = () => new Date();
  const handlers: Handlers = {
    ...customerHandlers({ store, cursors, now, maxCompaniesShown: maxItemsOf(contract, 'Customer', 'companies') }),
    ...companyHandlers({ store, cursors, formation, now }),
    ...documentHandlers({ store, cursors, signer }),
    ...referenceHandlers({ cursors }),
    ...sandboxHandlers({ formation }),
    ...overrides.handlers,
  };
  const unhandled = operations.map((op) => op.operationId).filter((id) => !(id in handlers));
  if (unhandled.length > 0 && config.unhandledOperations === 'refuse') {
    await Promise.all([formation.close(), dispatcher.close()]);
    throw new ConfigError(
      `the contract has operations this mock has no handler for: ${unhandled.join(', ')}. Pass --unhandled-operations examples to answer them from the contract's examples.`,
    );
  }
  const journal = createRequestJournal(store.journal, logger);
  const keys = createKeyChecker(config.environment, config.apiKeys);
  const faults = createFaultRegistry();
  let baseUrl = config.publicUrl ?? '';
  let selfUrl = '';

  const pipeline = composePipeline(
    [
      assignRequestId,
      recordExchange({ logger, journal }),
      allowCrossOrigin({ origins: config.cors.origins, contract, operations }),
      limitRate({ perSecond: config.rateLimitPerSecond, buckets: store.rateBuckets, keys }),
      routeRequest(createRouter(operations)),
      gateSandboxOperations(config.environment),
      authenticate(keys),
      readBody({ maxBytes: config.maxBodyBytes }),
      enforceIdempotency(store.idempotency, logger),
      refuseMalformedJson,
      validateRequest(requestValidatorOf),
      // After idempotency, so that a held request is in flight for its key, and an injected 5xx is not stored.
      injectFaults(faults),
      dispatch({ handlers, examples: unhandled.length > 0 ? createPrismEngine(contract) : undefined, baseUrl: () => baseUrl, logger }),
    ],
    createAnswerFinaliser({ validatorOf: responseValidatorOf, enabled: (exchange) => settings.of(exchange.partner?.id).validateResponses, logger }),
  );
  const admin = await createMockRoutes({
    apiContract: contract,
    guard: createAdminGuard({ adminToken: config.adminToken, hosts: [config.host, ...(config.publicUrl ? [new URL(config.publicUrl).hostname] : [])] }),
    keys,
    logger,
    services: {
      config,
      store,
      journal,
      dispatcher,
      faults,
      settings,
      endpoints: createWebhookEndpointPortal({ store, dispatcher, eventTypes: [...listWebhooks(contract).keys()] }),
      events: createEventPortal({ store, dispatcher, cursors, defaultEndpoint: config.webhookUrl !== undefined }),
      cursors,
      apiOperationIds: operations.map((op) => op.operationId),
      selfUrl: () => selfUrl,
      publicUrl: () => baseUrl,
    },
  }).catch(async (error: unknown) => {
    // Nothing may keep running on a store about to be closed (startMock closes it on a failed start).
    await Promise.all([formation.close(), dispatcher.close()]);
    throw error;
  });

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
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ payload: null, error: { code: 'E_INTERNAL', message: 'An unexpected error occurred.', requestId: 'unknown' } }));
      });
    }),
  );
  // Refusals before routing (malformed framing, headers over 16 KiB, too slow, an unmet Expect) carry the envelope.
  server.on('clientError', protocol.clientError);
  server.on('checkExpectation', protocol.checkExpectation);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = parseRequestTarget(request.url);
    if (await admin.handle(request, response, url)) return;
    await serveExchange(pipeline, request, response, url, logger);
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    await Promise.all([formation.close(), dispatcher.close()]);
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  baseUrl = config.publicUrl ?? url;
  selfUrl = url;

  let closed: Promise<void> | undefined;
  return {
    url,
    config,
    store,
    webhookSecret,
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          // A client that keeps a request open must not hold the shutdown: requests in flight get a grace period.
          const deadline = setTimeout(() => {
            logger.warn({ graceMs: shutdownGraceMs }, 'closing the connections still open after the grace period');
            server.closeAllConnections();
          }, shutdownGraceMs);
          server.close(() => {
            clearTimeout(deadline);
            resolve();
          });
          server.closeIdleConnections();
        });
        await Promise.all([formation.close(), dispatcher.close()]);
        await journal.flush();
        await store.close();
      })();
      return closed;
    },
  };
}
