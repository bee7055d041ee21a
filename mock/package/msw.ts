/**
 * The mock inside a frontend's own tests (`@partner-formation/mock/msw`): Mock Service Worker's handlers over the mock
 * in process (app/in-process.ts), for `setupServer` in Node and jsdom and `setupWorker` in a browser, with the small
 * typed API of msw-api.ts that a test resets, seeds, arms and reads it with. Each call of that API goes through the
 * admin routes in process, so it is checked against the admin contract as it is over HTTP.
 */
import { http } from 'msw';
import createClient from 'openapi-fetch';
import type { ContractDocument } from '../../contract-model/document.ts';
import { startInProcessMock } from '../app/in-process.ts';
import { MockAdminError, type CreateMock, type PartnerFormationMock, type WebhookHandler } from './msw-api.ts';

export { MockAdminError } from './msw-api.ts';
export type * from './msw-api.ts';

/** The contracts, given where they are not read from files (a browser's bundle: msw-browser.ts). */
export interface Contracts {
  contract?: ContractDocument;
  adminContract?: ContractDocument;
}

export function mockCreator(contracts: Contracts = {}): CreateMock {
  return async (options = {}) => {
    const receivers = new Set<WebhookHandler>();
    const mock = await startInProcessMock({
      baseUrl: options.baseUrl ?? (await defaultBaseUrl(contracts.contract)),
      ...(options.options ? { options: options.options } : {}),
      ...contracts,
      deliver: (input, init) => deliver(receivers, new Request(input, init)),
    });
    const admin = createClient<import('./msw-api.ts').AdminPaths>({ baseUrl: mock.baseUrl, fetch: mock.handle });
    const as = (apiKey: string | undefined) => (apiKey === undefined ? {} : { authorization: apiKey });
    const api: PartnerFormationMock = {
      baseUrl: mock.baseUrl,
      handlers: [http.all(`${mock.baseUrl}/*`, ({ request }) => mock.handle(request))],
      handle: mock.handle,
      reset: async (apiKey) => {
        payloadOf(await admin.DELETE('/_mock/faults', { headers: as(apiKey) }));
        return payloadOf(await admin.POST('/_mock/reset', { headers: as(apiKey) }));
      },
      seed: async (document, apiKey) => payloadOf(await admin.POST('/_mock/seed', { body: document, headers: as(apiKey) })),
      arm: async (fault, apiKey) => payloadOf(await admin.POST('/_mock/faults', { body: fault, headers: as(apiKey) })),
      requests: async (query, apiKey) => {
        // The journal is written in batches, off the request's path: what was sent until now is in it once written.
        await mock.services.journal.flush();
        return payloadOf(await admin.GET('/_mock/requests', { params: { query: query ?? {} }, headers: as(apiKey) }));
      },
      exchange: async (entryId, apiKey) => payloadOf(await admin.GET('/_mock/requests/{entryId}', { params: { path: { entryId } }, headers: as(apiKey) })),
      onWebhook: (handler) => {
        receivers.add(handler);
        return () => void receivers.delete(handler);
      },
      admin,
      close: mock.close,
    };
    return api;
  };
}

/** The mock, its contracts read from the files the package carries (Node, jsdom). */
export const createMock: CreateMock = mockCreator();

/** The first server the contract names (the sandbox's): where an app built on the contract calls by default. */
async function defaultBaseUrl(contract: ContractDocument | undefined): Promise<string> {
  const document = contract ?? (await import('../../contract-model/document.ts').then(({ loadContract }) => loadContract()));
  const url = (document?.servers as { url?: unknown }[] | undefined)?.[0]?.url;
  if (typeof url !== 'string') throw new Error('the contract names no server: pass baseUrl');
  return new URL(url).origin;
}

/** A delivery to every receiver registered: the first answer is the receiver's; with none, it is accepted (204). */
async function deliver(receivers: ReadonlySet<WebhookHandler>, delivery: Request): Promise<Response> {
  let answer: Response | undefined;
  for (const receiver of [...receivers]) {
    const answered = await receiver(delivery.clone());
    answer ??= answered ?? undefined;
  }
  return answer ?? new Response(null, { status: 204 });
}

/** An admin answer's payload, or its error thrown as a MockAdminError. */
function payloadOf<T>(result: { data?: { payload: T }; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data.payload;
  const error = (result.error as { error?: { code?: string; message?: string; details?: [] } } | undefined)?.error;
  throw new MockAdminError(result.response.status, error?.code ?? 'E_INTERNAL', error?.message ?? `The admin API answered ${result.response.status}.`, error?.details ?? []);
}
