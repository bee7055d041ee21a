/**
 * The mock's admin API under `/_mock/`, which has a contract of its own (mock/admin/openapi/) and is served from it
 * the way the API is served from its contract: requests routed and validated against it, handlers typed from it,
 * and every answer checked against it before it leaves. Before anything else, an admin request must come from the
 * mock's own origin and host, and carry the admin token when one is set (admin-guard.ts).
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { loadContract, type ContractDocument } from '../../contract-model/document.ts';
import { generatedPath } from '../../contract-model/generated-files.ts';
import { listOperations } from '../../contract-model/operations.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { compileResponseValidator } from '../../contract-model/response-validator.ts';
import { createRouter } from '../../contract-model/router.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { authenticate } from '../pipeline/authenticate.ts';
import type { Environment, KeyChecker } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import { compressible, encode, encodingFor, minCompressedBytes } from '../http/content-encoding.ts';
import { assignRequestId } from '../pipeline/assign-request-id.ts';
import { dispatch } from '../pipeline/dispatch.ts';
import { createAnswerFinaliser } from '../pipeline/finalise-answer.ts';
import type { Exchange } from '../pipeline/exchange.ts';
import { composePipeline, type Step } from '../pipeline/pipeline.ts';
import type { BodyBudget } from '../pipeline/body-budget.ts';
import { readBody } from '../pipeline/read-body.ts';
import { respond } from '../pipeline/reply.ts';
import { routeRequest } from '../pipeline/route-request.ts';
import type { Channel } from '../pipeline/send-answer.ts';
import { compileRequestValidator } from '../pipeline/request-validator.ts';
import { validateRequest } from '../pipeline/validate-request.ts';
import { createExchangeLogger, createExchangeRecorder } from '../journal/record-exchange.ts';
import { limitRate, type RateCaller } from '../rate-limit/limit-rate.ts';
import { createProcessRateBuckets } from '../rate-limit/rate-buckets.ts';
import type { AdminGuard } from './admin-guard.ts';
import { createAdminHandlers, type AdminServices } from './admin-handlers.ts';

export const adminContractPath = generatedPath('mock-admin', 'openapi.json');
const adminDocsPath = generatedPath('mock-admin', 'docs', 'index.html');

/** A seed may be large, and an event to relay as large as the API's bodies; every other admin body is small. */
const maxSeedBytes = 16 * 1024 * 1024;
const maxRelayedEventBytes = 1024 * 1024;
const maxAdminBodyBytes = 64 * 1024;
const maxBodyBytesOf: Readonly<Record<string, number>> = { seedStore: maxSeedBytes, relayWebhook: maxRelayedEventBytes };

/**
 * The webhook relay's route: called by a sandbox, another machine with neither the admin token nor a key, and
 * authenticated by the event's signature instead (webhooks/relay/), which no page of another site can make.
 * Anyone who knows a relay URL can post to it, so each relay URL has the rate limit a key has in the API, applied
 * before its body is read.
 */
const relayPathPrefix = '/_mock/relay/';
const relayCaller = (exchange: Exchange): RateCaller | undefined =>
  exchange.operation?.operationId === 'relayWebhook' ? { bucket: `relay:${exchange.pathParams.endpointId ?? ''}`, refusal: 'Too many events for this relay URL; retry after Retry-After seconds.' } : undefined;

export function isAdminPath(pathname: string): boolean {
  return pathname === '/_mock' || pathname.startsWith('/_mock/');
}

export async function createAdminChannel(options: {
  guard: AdminGuard;
  keys: KeyChecker;
  logger: Logger;
  services: Omit<AdminServices, 'adminContract' | 'adminDocs'>;
  bodyBudget: BodyBudget;
  /** The API's rate limit (`--rate-limit`), which each relay URL has too. */
  rate: { perSecond: number; environment: Environment };
  /** The URL of the links an answer makes (a relay's), for the Host a request came with (http/own-hosts.ts). */
  linkBase: (host: string | undefined) => string;
  /** The admin contract, already read (in process, where there may be no file to read); read from generated/ otherwise. */
  adminContract?: ContractDocument;
}): Promise<Channel> {
  const { guard, logger, services } = options;
  const adminContract = options.adminContract ?? (await loadContract(adminContractPath));
  const operations = listOperations(adminContract);
  const compiler = schemaCompilerOf(adminContract);
  let adminDocs: Promise<Buffer> | undefined;
  const handlers = createAdminHandlers({ ...services, adminContract, adminDocs: () => (adminDocs ??= readFile(adminDocsPath)) });

  // The admin API's documents (its reference docs, megabytes of inlined Redoc; its contract) compressed for a client
  // that accepts it, like the API's; after the handler, so that each is made and checked on its own bytes.
  const compressDocuments: Step = async (exchange, next) => {
    await next();
    const answer = exchange.response;
    if (!answer || typeof answer.body === 'string' || answer.body.byteLength < minCompressedBytes || !compressible(answer.headers['content-type'])) return;
    answer.headers.vary = 'accept-encoding';
    const encoding = encodingFor(exchange.request);
    if (encoding === 'identity') return;
    answer.body = await encode(answer.body, encoding);
    answer.headers['content-encoding'] = encoding;
  };

  const guardAdmin: Step = (exchange, next) => {
    if (exchange.url.pathname.startsWith(relayPathPrefix)) return next();
    const refusal = guard.check(exchange.request.headers, exchange.request.remoteAddress);
    if (!refusal) return next();
    exchange.request.discardBody();
    respond(exchange, new ApiError(refusal.status, refusal.code, refusal.message));
  };

  const recordRelayed = createExchangeRecorder({ logger, journal: services.journal });
  const logAdmin = createExchangeLogger({ logger });
  return {
    run: composePipeline([
      assignRequestId,
      guardAdmin,
      routeRequest(createRouter(operations)),
      limitRate({ ...options.rate, buckets: createProcessRateBuckets(), callerOf: relayCaller }),
      authenticate(options.keys),
      readBody({ maxBytes: maxAdminBodyBytes, maxBytesOf: (operationId) => maxBodyBytesOf[operationId] ?? maxAdminBodyBytes, budget: options.bodyBudget }),
      validateRequest(perOperation(operations, (op) => compileRequestValidator(adminContract, op, compiler))),
      compressDocuments,
      dispatch({ handlers, baseUrl: (exchange) => options.linkBase(exchange.request.headers.host), logger }),
    ]),
    // Always on: the admin contract is the mock's own, and what a console or a script builds on.
    finalise: createAnswerFinaliser({ validatorOf: perOperation(operations, (op) => compileResponseValidator(adminContract, op, compiler)), enabled: () => true, logger }),
    // Admin requests are logged like the API's, but not journaled: the request journal is what they read, not what
    // they add to. But for the events a sandbox sends the relay: those are the partner's traffic, held against the
    // contract like its requests, and journaled in the partner's journal once verified. What anyone may send (an
    // event for no endpoint, or not signed by the sandbox) would only wear the partner's history down: it is
    // logged only.
    record: (exchange, aborted) => {
      if (exchange.url.pathname.startsWith(relayPathPrefix) && exchange.journalNote) recordRelayed(exchange, aborted);
      else logAdmin(exchange, aborted);
    },
  };
}
