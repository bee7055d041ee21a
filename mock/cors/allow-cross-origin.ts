/**
 * CORS for the API routes, so that a page on `http://localhost:3000` can prototype against the mock (the real API
 * is called from backends only: its keys are secrets). A preflight is answered 204 here, before rate limiting and
 * authentication, which a browser's preflight cannot pass (it carries no key). What is allowed and exposed is the
 * contract's: the request headers its operations and security scheme define, and the response headers it defines.
 * The admin routes run another pipeline without this step, so they never grant another site anything.
 */
import type { ContractDocument } from '../../contract-model/document.ts';
import type { ContractOperation } from '../../contract-model/operations.ts';
import type { Step } from '../pipeline/pipeline.ts';

const preflightMaxAgeSeconds = 600;

export function allowCrossOrigin(options: { origins: '*' | readonly string[]; contract: ContractDocument; operations: readonly ContractOperation[] }): Step {
  const { origins, operations } = options;
  const requestHeaders = new Set(['content-type']);
  const responseHeaders = new Set<string>();
  const methods = new Set<string>();
  for (const operation of operations) {
    methods.add(operation.method);
    for (const parameter of operation.parameters) if (parameter.in === 'header') requestHeaders.add(parameter.name.toLowerCase());
    for (const response of operation.responses.values()) for (const header of response.headers) responseHeaders.add(header.name);
  }
  for (const name of apiKeyHeaders(options.contract)) requestHeaders.add(name);
  const allowHeaders = [...requestHeaders].join(', ');
  const exposeHeaders = [...responseHeaders].filter((name) => name !== 'content-type').join(', ');
  const allowMethods = [...methods].join(', ');
  const allows = (origin: string) => origins === '*' || origins.includes(origin);

  return (exchange, next) => {
    const origin = exchange.request.headers.origin;
    const preflight = exchange.method === 'OPTIONS' && exchange.request.headers['access-control-request-method'] !== undefined;
    if (origin !== undefined && allows(origin)) {
      exchange.commonHeaders['access-control-allow-origin'] = origins === '*' ? '*' : origin;
      exchange.commonHeaders['access-control-expose-headers'] = exposeHeaders;
    }
    // The answer depends on Origin whenever a list decides it, granted or not: caches must keep them apart.
    if (origins !== '*') exchange.commonHeaders.vary = 'Origin';
    if (!preflight) return next();
    // Not granted: the same 204 without the grant, which the browser reads as a refusal.
    const grant: Record<string, string> = origin !== undefined && allows(origin)
      ? { 'access-control-allow-methods': allowMethods, 'access-control-allow-headers': allowHeaders, 'access-control-max-age': String(preflightMaxAgeSeconds) }
      : {};
    exchange.response = { status: 204, headers: grant, body: '' };
  };
}

/** The headers the contract's API-key security schemes read the key from (`Authorization`). */
function apiKeyHeaders(contract: ContractDocument): string[] {
  const schemes = Object.values((contract.components as { securitySchemes?: Record<string, { type?: string; in?: string; name?: string }> }).securitySchemes ?? {});
  return schemes.filter((scheme) => scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name).map((scheme) => String(scheme.name).toLowerCase());
}
