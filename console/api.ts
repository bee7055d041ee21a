/**
 * The console's only ways to the mock: the admin API and the partner API, each through a client typed from its
 * contract's generated types (openapi-fetch), with the session's key and admin token. Nothing is loaded from
 * anywhere else.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components as AdminComponents, paths as AdminPaths } from '../generated/mock-admin/openapi.js';
import type { components as ApiComponents, paths as ApiPaths } from '../generated/openapi.js';
import { adminToken, partnerKey } from './session.ts';

export type AdminSchemas = AdminComponents['schemas'];
export type ApiSchemas = ApiComponents['schemas'];
export type JournalEntry = AdminSchemas['RequestJournalEntry'];
export type JournalExchange = AdminSchemas['RequestJournalExchange'];

export const adminTokenHeader = 'x-mock-admin-token';

/** The session's partner key on every call, and the admin token on the admin API's only (never sent to `/v1`). */
function sessionHeaders(options: { adminToken: boolean }): Middleware {
  return {
    onRequest({ request }) {
      if (options.adminToken && adminToken.value) request.headers.set(adminTokenHeader, adminToken.value);
      if (partnerKey.value && !request.headers.has('authorization')) request.headers.set('authorization', partnerKey.value);
      return request;
    },
  };
}

/** The admin API, acting for the session's partner (or every partner, without a key). */
export function adminClient(): Client<AdminPaths> {
  const client = createClient<AdminPaths>({ baseUrl: location.origin });
  client.use(sessionHeaders({ adminToken: true }));
  return client;
}

/**
 * The partner API, for the console's own reads and controls: with the session's key, marked as the console's
 * (`X-Mock-Tool`, so that its Requests view can keep them apart from what the partner's app sent); a create gets a
 * fresh Idempotency-Key. Try sends its requests itself, unmarked: they are the partner's own.
 */
export function apiClient(): Client<ApiPaths> {
  const client = createClient<ApiPaths>({ baseUrl: location.origin, headers: { 'x-mock-tool': 'console' } });
  client.use(sessionHeaders({ adminToken: false }));
  client.use({
    onRequest({ request }) {
      if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', crypto.randomUUID());
      return request;
    },
  });
  return client;
}

/** An error envelope's message, or the status, for showing. */
export function problemOf(result: { error?: unknown; response: Response }): string {
  const error = (result.error as { error?: { code?: string; message?: string } } | undefined)?.error;
  return error?.code ? `${error.code}: ${error.message ?? ''}` : `HTTP ${result.response.status}`;
}
