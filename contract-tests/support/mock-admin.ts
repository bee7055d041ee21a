/**
 * The mock's admin API (`/_mock/*`, described by its own contract in mock/admin/openapi/), for runs against a mock
 * they started themselves: a typed client over its generated types, faults to arm, and the request journal, where
 * the mock notes every answer of its own that broke the contract.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/mock-admin/openapi.js';
import type { OperationId } from '../../client/index.ts';

export type MockAdminClient = Client<paths>;
export type AdminSchemas = components['schemas'];
export type JournalEntry = AdminSchemas['RequestJournalEntry'];

/** A client of the admin API; with `apiKey` it acts for that key's partner, with `adminToken` it passes the token check. */
export function mockAdminClient(baseUrl: string, options: { apiKey?: string; adminToken?: string; headers?: Record<string, string> } = {}): MockAdminClient {
  return createClient<paths>({
    baseUrl,
    headers: {
      ...(options.apiKey ? { authorization: options.apiKey } : {}),
      ...(options.adminToken ? { 'x-mock-admin-token': options.adminToken } : {}),
      ...options.headers,
    },
  });
}

/** What `POST /_mock/faults` takes: the next `count` (default 1) requests of the operation answer `status` or are held `delayMs`. */
export type FaultRequest = { operationId: OperationId; status?: 429 | 500 | 503; delayMs?: number; count?: number };

export async function armMockFault(baseUrl: string, fault: FaultRequest, apiKey?: string): Promise<void> {
  const { response, error } = await mockAdminClient(baseUrl, { ...(apiKey ? { apiKey } : {}) }).POST('/_mock/faults', { body: fault });
  if (response.status !== 201) throw new Error(`Arming ${JSON.stringify(fault)} failed: ${response.status} ${JSON.stringify(error)}`);
}

export async function clearMockFaults(baseUrl: string): Promise<void> {
  await mockAdminClient(baseUrl).DELETE('/_mock/faults');
}

/**
 * Every answer the mock journaled as breaking the contract, one line each. The mock checks each of its answers
 * against the contract's schemas: where a tool compares less (Dredd compares bodies with examples only by their
 * keys), this is where a wrong type or enum value shows up.
 */
export async function mockContractViolations(baseUrl: string): Promise<string[]> {
  const requests = await readMockJournal(baseUrl);
  return requests
    .filter((entry) => (entry.contractViolations?.length ?? 0) > 0)
    .map((entry) => `${entry.method} ${entry.path} → ${entry.status} (${entry.requestId}): ${entry.contractViolations?.join('; ')}`);
}

/** The whole request journal (or a partner's, with its key), page by page (a page holds at most 1000 entries), oldest first. */
export async function readMockJournal(baseUrl: string, options: { apiKey?: string; adminToken?: string } = {}): Promise<JournalEntry[]> {
  const admin = mockAdminClient(baseUrl, options);
  const pages: JournalEntry[][] = [];
  for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
    const query: { limit: number; cursor?: string } = cursor === null ? { limit: 1000 } : { limit: 1000, cursor };
    const { data, response } = await admin.GET('/_mock/requests', { params: { query } });
    if (!data) throw new Error(`GET /_mock/requests answered ${response.status}`);
    const page: AdminSchemas['RequestJournalPage'] = data.payload;
    pages.unshift(page.data);
    cursor = page.nextCursor;
  }
  return pages.flat();
}
