/**
 * The mock's own routes: the API's reference docs and contract (`/docs`, `/openapi.json`), and the admin API under
 * `/_mock/`, which has a contract of its own (mock/admin/openapi/) and is served from it the way the API is served
 * from its contract: requests routed and validated against it, handlers typed from it, and every answer checked
 * against it before it leaves. Before anything else, an admin request must come from the mock's own origin and
 * host, and carry the admin token when one is set (admin-guard.ts).
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { loadContract, type ContractDocument } from '../../contract-model/document.ts';
import { changelogPath, generatedPath } from '../../contract-model/generated-files.ts';
import { createStaticDocuments } from './static-documents.ts';
import { listOperations } from '../../contract-model/operations.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { compileResponseValidator } from '../../contract-model/response-validator.ts';
import { createRouter } from '../../contract-model/router.ts';
import { createSchemaCompiler } from '../../contract-model/schema-compiler.ts';
import type { KeyChecker } from '../auth/api-keys.ts';
import { ApiError } from '../http/api-error.ts';
import { respond } from '../http/exchange.ts';
import { serveExchange } from '../http/serve-exchange.ts';
import { createAnswerFinaliser } from '../http/finalise-answer.ts';
import { composePipeline, type Pipeline, type Step } from '../http/pipeline.ts';
import type { RequestTarget } from '../http/request-target.ts';
import { assignRequestId } from '../steps/assign-request-id.ts';
import { authenticate } from '../steps/authenticate.ts';
import { dispatch } from '../steps/dispatch.ts';
import { readBody, refuseMalformedJson } from '../steps/read-body.ts';
import { routeRequest } from '../steps/route-request.ts';
import { validateRequest } from '../steps/validate-request.ts';
import { compileRequestValidator } from '../validation/request-validator.ts';
import type { AdminGuard } from './admin-guard.ts';
import { createAdminHandlers, type AdminServices } from './admin-handlers.ts';

export const adminContractPath = generatedPath('mock-admin', 'openapi.json');
const apiDocsPath = generatedPath('docs', 'index.html');
const adminDocsPath = generatedPath('mock-admin', 'docs', 'index.html');

/** A seed may be large; every other admin body is small. */
const maxSeedBytes = 16 * 1024 * 1024;
const maxAdminBodyBytes = 64 * 1024;

export interface MockRoutes {
  /** Answers and returns true when the path is one of the mock's own. */
  handle(request: IncomingMessage, response: ServerResponse, url: RequestTarget): Promise<boolean>;
}

export async function createMockRoutes(options: {
  apiContract: ContractDocument;
  guard: AdminGuard;
  keys: KeyChecker;
  logger: Logger;
  services: Omit<AdminServices, 'adminContract' | 'adminDocs'>;
}): Promise<MockRoutes> {
  const { guard, logger, services } = options;
  const adminContract = await loadContract(adminContractPath);
  const operations = listOperations(adminContract);
  const compiler = createSchemaCompiler(adminContract);
  let adminDocs: Promise<Buffer> | undefined;
  const handlers = createAdminHandlers({ ...services, adminContract, adminDocs: () => (adminDocs ??= readFile(adminDocsPath)) });
  // Made on first request, once the mock knows its URL: the contract it serves lists the mock as its first server,
  // so that Postman, Insomnia or a generated client pointed at /openapi.json call the mock, not the sandbox.
  let apiContractJson: Buffer | undefined;
  const servedContract = () => (apiContractJson ??= Buffer.from(JSON.stringify(withMockServer(options.apiContract, services.publicUrl(), services.config.environment))));
  let apiDocs: Promise<Buffer> | undefined;
  const docs = { contentType: 'text/html; charset=utf-8', read: () => (apiDocs ??= readFile(apiDocsPath)) };
  const serveDocument = createStaticDocuments({
    '/': docs,
    '/docs': docs,
    '/openapi.json': { contentType: 'application/json', read: async () => servedContract() },
    // The docs link to it; read on each request, so a release shows without a restart.
    '/CHANGELOG.md': { contentType: 'text/markdown; charset=utf-8', read: () => readFile(changelogPath).catch(() => undefined) },
  });

  const guardAdmin: Step = (exchange, next) => {
    const refusal = guard.check(exchange.request.headers);
    if (!refusal) return next();
    exchange.request.resume();
    respond(exchange, new ApiError(refusal.status, refusal.code, refusal.message));
  };

  const pipeline: Pipeline = composePipeline(
    [
      assignRequestId,
      guardAdmin,
      routeRequest(createRouter(operations)),
      authenticate(options.keys),
      readBody({ maxBytes: maxAdminBodyBytes, maxBytesOf: (operationId) => (operationId === 'seedStore' ? maxSeedBytes : maxAdminBodyBytes) }),
      refuseMalformedJson,
      validateRequest(perOperation(operations, (op) => compileRequestValidator(adminContract, op, compiler))),
      dispatch({ handlers, baseUrl: services.selfUrl, logger }),
    ],
    // Always on: the admin contract is the mock's own, and what a console or a script builds on.
    createAnswerFinaliser({ validatorOf: perOperation(operations, (op) => compileResponseValidator(adminContract, op, compiler)), enabled: () => true, logger }),
  );

  return {
    async handle(request, response, url) {
      const { pathname } = url;
      if (await serveDocument(request, response, pathname)) return true;
      if (pathname !== '/_mock' && !pathname.startsWith('/_mock/')) return false;
      await serveExchange(pipeline, request, response, url, logger);
      return true;
    },
  };
}

function withMockServer(contract: ContractDocument, url: string, environment: string): ContractDocument {
  const server = { url, description: `This mock of the API (its ${environment} environment), for prototyping: see the servers below for the real ones.` };
  return { ...contract, servers: [server, ...((contract.servers as unknown[] | undefined) ?? [])] };
}
