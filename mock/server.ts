/**
 * Builds the mock from its configuration: the contract, the pipeline every request walks, the handlers, the
 * formation engine and the webhook dispatcher; and serves it over HTTP.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadContract, maxItemsOf } from '../contract-model/document.ts';
import { listOperations } from '../contract-model/operations.ts';
import { perOperation } from '../contract-model/per-operation.ts';
import { compileResponseValidator } from '../contract-model/response-validator.ts';
import { createRouter } from '../contract-model/router.ts';
import { createSchemaCompiler } from '../contract-model/schema-compiler.ts';
import { createAdminRoutes } from './admin/admin-routes.ts';
import { createFaultRegistry } from './admin/faults.ts';
import { createRequestJournal } from './admin/request-journal.ts';
import { createKeyChecker } from './auth/api-keys.ts';
import type { MockConfig } from './config.ts';
import { createDownloadUrlSigner } from './documents/signed-url.ts';
import { createDocumentFactory } from './formation/document-factory.ts';
import { createFormationEngine } from './formation/formation-engine.ts';
import { ApiError } from './http/api-error.ts';
import { createCursorCodec } from './http/cursor.ts';
import { respond, type Exchange } from './http/exchange.ts';
import { composePipeline } from './http/pipeline.ts';
import { parseRequestTarget } from './http/request-target.ts';
import { createIdempotencyStore } from './idempotency/idempotency-store.ts';
import { companyHandlers } from './resources/companies/company-handlers.ts';
import { customerHandlers } from './resources/customers/customer-handlers.ts';
import { documentHandlers } from './resources/documents/document-handlers.ts';
import type { Handlers } from './resources/handler.ts';
import { referenceHandlers } from './resources/reference/reference-handlers.ts';
import { sandboxHandlers } from './resources/sandbox/sandbox-handlers.ts';
import { assignRequestId } from './steps/assign-request-id.ts';
import { authenticate } from './steps/authenticate.ts';
import { checkResponse } from './steps/check-response.ts';
import { dispatch } from './steps/dispatch.ts';
import { enforceIdempotency } from './steps/enforce-idempotency.ts';
import { gateSandboxOperations } from './steps/gate-sandbox-operations.ts';
import { injectFaults } from './steps/inject-faults.ts';
import { limitRate } from './steps/limit-rate.ts';
import { readBody, refuseMalformedJson } from './steps/read-body.ts';
import { recordExchange } from './steps/record-exchange.ts';
import { routeRequest } from './steps/route-request.ts';
import { validateRequest } from './steps/validate-request.ts';
import { createMemoryStore } from './store/memory-store.ts';
import type { Store } from './store/store.ts';
import { createPrismEngine } from './validation/prism-engine.ts';
import { compileRequestValidator } from './validation/request-validator.ts';
import { createWebhookDispatcher } from './webhooks/index.ts';

export interface RunningMock {
  url: string;
  config: MockConfig;
  store: Store;
  close(): Promise<void>;
}

export async function startMock(config: MockConfig, logger: Logger, overrides: { handlers?: Handlers } = {}): Promise<RunningMock> {
  const contract = await loadContract(config.contractPath);
  const operations = listOperations(contract);
  const compiler = createSchemaCompiler(contract);
  const requestValidatorOf = perOperation(operations, (op) => compileRequestValidator(contract, op, compiler));
  const responseValidatorOf = perOperation(operations, (op) => compileResponseValidator(contract, op, compiler));
  const settings = { validateResponses: config.validateResponses };

  const store = createMemoryStore();
  const cursors = createCursorCodec();
  const signer = createDownloadUrlSigner({ secret: randomBytes(32), ttlSeconds: Math.max(1, Math.round(config.downloadUrlTtlMs / 1000)) });
  const dispatcher = createWebhookDispatcher({
    endpointUrl: config.webhookUrl,
    secret: config.webhookSecret,
    retryDelaysMs: config.webhookRetryDelaysMs,
    attemptTimeoutMs: config.webhookTimeoutMs,
    logger: logger.child({ component: 'webhooks' }),
  });
  const formation = createFormationEngine({
    store,
    events: dispatcher,
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
  const journal = createRequestJournal();
  const faults = createFaultRegistry();
  let baseUrl = config.publicUrl ?? '';

  const responseCheck = checkResponse({ validatorOf: responseValidatorOf, enabled: () => settings.validateResponses, logger });
  const pipeline = composePipeline([
    assignRequestId,
    recordExchange({ logger, journal }),
    responseCheck,
    limitRate({ perSecond: config.rateLimitPerSecond }),
    routeRequest(createRouter(operations)),
    gateSandboxOperations(config.environment),
    authenticate(createKeyChecker(config.environment, config.apiKeys)),
    readBody({ maxBytes: config.maxBodyBytes }),
    enforceIdempotency(createIdempotencyStore({ ttlMs: config.idempotencyTtlMs, maxRecords: config.idempotencyMaxRecords })),
    // Checked again inside idempotency, so that an answer turned into a 500 for breaking the contract is not
    // stored and replayed: a 5xx must leave the key free for the retry.
    responseCheck,
    refuseMalformedJson,
    validateRequest(requestValidatorOf),
    // After idempotency, so that a held request is in flight for its key, and an injected 5xx is not stored.
    injectFaults(faults),
    dispatch({ handlers, examples: createPrismEngine(contract), baseUrl: () => baseUrl, logger }),
  ]);
  const admin = createAdminRoutes({ contract, journal, dispatcher, settings, config, faults, operationIds: operations.map((op) => op.operationId) });

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'request failed outside the pipeline');
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ payload: null, error: { code: 'E_INTERNAL', message: 'An unexpected error occurred.', requestId: 'unknown' } }));
    });
  });
  server.keepAliveTimeout = 65_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = parseRequestTarget(request.url);
    if (await admin.handle(request, response, url)) return;
    const exchange: Exchange = {
      request,
      method: request.method ?? 'GET',
      url,
      startedAt: process.hrtime.bigint(),
      requestId: '',
      pathParams: {},
      commonHeaders: {},
    };
    try {
      await pipeline(exchange);
    } catch (error) {
      // Still the contract's envelope and headers: the request id and rate-limit headers are already known.
      logger.error({ err: error, requestId: exchange.requestId }, 'request failed in the pipeline');
      exchange.response = undefined;
      respond(exchange, new ApiError(500, 'E_INTERNAL', 'An unexpected error occurred.'));
    }
    if (!exchange.response) respond(exchange, new ApiError(500, 'E_INTERNAL', 'No answer was produced.'));
    const answer = exchange.response as NonNullable<Exchange['response']>;
    // A known length lets Node send the head and the body in one write, without chunked framing; a HEAD answer
    // carries the length its GET would have.
    const length = String(Buffer.byteLength(answer.body));
    response.writeHead(answer.status, { ...exchange.commonHeaders, 'x-request-id': exchange.requestId, ...answer.headers, 'content-length': length });
    response.end(exchange.method === 'HEAD' ? undefined : answer.body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  baseUrl = config.publicUrl ?? url;

  return {
    url,
    config,
    store,
    async close() {
      formation.close();
      await dispatcher.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}
