/**
 * Adds the headers every request needs, as an openapi-fetch middleware so that calls through the raw client get
 * them too. A value the caller set for one call (`x-request-id`, `Idempotency-Key`) is kept.
 *
 * The headers are set once, before the retrying transport sees the request, which is what makes a retried
 * create carry the same `Idempotency-Key` on every attempt.
 */
import type { Middleware } from 'openapi-fetch';
import { isIdempotentCreate } from './idempotent-routes.ts';

export interface RequestHeaderSources {
  apiKey: string;
  requestId: () => string;
  idempotencyKey: () => string;
}

export function requestHeadersMiddleware(sources: RequestHeaderSources): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      // The contract wants the raw key: a `Bearer` prefix is refused.
      request.headers.set('Authorization', sources.apiKey);
      if (!request.headers.has('x-request-id')) request.headers.set('x-request-id', sources.requestId());
      if (isIdempotentCreate(request.method, schemaPath) && !request.headers.has('idempotency-key')) {
        request.headers.set('Idempotency-Key', sources.idempotencyKey());
      }
      return request;
    },
  };
}
