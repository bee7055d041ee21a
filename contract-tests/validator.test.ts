/**
 * The response check itself, on responses made up here: a suite whose validator accepted anything would pass
 * against any target. Each case breaks one promise of the contract and must be caught.
 */
import { describe, expect, it } from 'vitest';
import { checkRefusal, checkResponse } from './support/check-response.ts';
import { contractOperation, contractOperations, exampleValue, matchRoute } from './support/contract.ts';

const customerCreated = exampleValue('CustomerCreated');
const rateLimitHeaders = { 'ratelimit-limit': '25', 'ratelimit-remaining': '24', 'ratelimit-reset': '1', 'ratelimit-policy': '25;w=1;burst=50' };

function problems(
  operationId: Parameters<typeof contractOperation>[0],
  status: number,
  headers: Record<string, string>,
  body: unknown,
  sentRequestId: string | null = 'req_sent',
): string[] {
  const bytes = new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body));
  return checkResponse(
    { kind: 'operation', operation: contractOperation(operationId), pathParams: {} },
    { status, headers: new Headers(headers), body: bytes, sentRequestId },
  ).problems;
}

const goodHeaders = { 'content-type': 'application/json', 'x-request-id': 'req_sent', ...rateLimitHeaders };

describe('the response check', () => {
  it("accepts the contract's own example", () => {
    expect(problems('createCustomer', 200, { ...goodHeaders, 'idempotent-replayed': 'false' }, customerCreated)).toEqual([]);
  });

  it.each([
    ['an undocumented status', 'createCustomer', 201, goodHeaders, customerCreated, /status 201 is not documented/],
    ['a missing required header', 'createCustomer', 200, { 'content-type': 'application/json', 'x-request-id': 'req_sent' }, customerCreated, /ratelimit-limit is missing/],
    ['an invalid header', 'createCustomer', 200, { ...goodHeaders, 'ratelimit-remaining': '-1' }, customerCreated, /ratelimit-remaining/],
    ['an enum header off its values', 'createCustomer', 200, { ...goodHeaders, 'idempotent-replayed': 'yes' }, customerCreated, /idempotent-replayed/],
    ['an undocumented media type', 'createCustomer', 200, { ...goodHeaders, 'content-type': 'text/html' }, '<html></html>', /content type text\/html/],
    ['a body off its schema', 'createCustomer', 200, goodHeaders, { payload: { serviceCustomerId: 'cus_1' }, error: {} }, /body/],
    ['an error where a success is documented', 'createCustomer', 200, goodHeaders, { payload: null, error: { code: 'E_INTERNAL', message: 'x', requestId: 'req_sent' } }, /body/],
    ['an undeclared error code', 'getCustomer', 404, goodHeaders, { payload: null, error: { code: 'E_GONE', message: 'x', requestId: 'req_sent' } }, /body/],
    ['a body that is not JSON', 'getCustomer', 404, goodHeaders, '{"payload": nu', /not JSON/],
    ['an x-request-id that does not echo the one sent', 'listStates', 400, { ...goodHeaders, 'x-request-id': 'req_other' }, { payload: null, error: { code: 'E_VALIDATION_FAILED', message: 'x', requestId: 'req_other' } }, /does not echo/],
    ['an error requestId other than x-request-id', 'listStates', 400, goodHeaders, { payload: null, error: { code: 'E_VALIDATION_FAILED', message: 'x', requestId: 'req_else' } }, /error.requestId/],
    ['a 503 without Retry-After', 'listStates', 503, goodHeaders, { payload: null, error: { code: 'E_SERVICE_UNAVAILABLE', message: 'x', requestId: 'req_sent' } }, /retry-after is missing/],
  ] as const)('catches %s', (_what, operationId, status, headers, body, expected) => {
    const found = problems(operationId, status, { ...headers }, body);
    expect(found.join('\n')).toMatch(expected);
  });

  it('holds a request outside every operation to the error envelope, with Allow on a 405', () => {
    const observed = (status: number, headers: Record<string, string>) => ({
      status,
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_sent', ...headers }),
      body: new TextEncoder().encode(JSON.stringify({ payload: null, error: { code: 'E_METHOD_NOT_ALLOWED', message: 'x', requestId: 'req_sent' } })),
      sentRequestId: 'req_sent',
    });
    expect(checkResponse({ kind: 'method-not-allowed', allow: ['GET'] }, observed(405, {})).problems.join()).toMatch(/Allow/);
    expect(checkResponse({ kind: 'method-not-allowed', allow: ['GET'] }, observed(405, { allow: 'GET' })).problems).toEqual([]);
  });
});

describe('the check of a refusal before routing', () => {
  const refusal = (status: number, code: string, headers: Record<string, string> = {}, requestId = 'req_new') => ({
    status,
    headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_new', connection: 'close', ...headers }),
    body: new TextEncoder().encode(JSON.stringify({ payload: null, error: { code, message: 'x', requestId } })),
    answeredBy: { kind: 'before-routing' } as const,
  });

  it('accepts one as the contract describes it', () => {
    expect(checkRefusal(refusal(431, 'E_HEADERS_TOO_LARGE')).problems).toEqual([]);
  });

  it.each([
    ['a code its table does not give that status', refusal(408, 'E_MALFORMED_REQUEST'), /not a refusal of the table/],
    ['a connection kept open', refusal(400, 'E_MALFORMED_REQUEST', { connection: 'keep-alive' }), /Connection/],
    ['RateLimit-* headers', refusal(417, 'E_EXPECTATION_FAILED', rateLimitHeaders), /ratelimit-limit/],
    ['an error requestId other than x-request-id', refusal(400, 'E_MALFORMED_REQUEST', {}, 'req_else'), /error.requestId/],
    ['a body that is not the envelope', { ...refusal(400, 'E_MALFORMED_REQUEST'), body: new TextEncoder().encode('Bad Request') }, /not JSON/],
  ] as const)('catches %s', (_what, observed, expected) => {
    expect(checkRefusal(observed).problems.join('\n')).toMatch(expected);
  });

  it("holds the 413 of a body over 1 MiB to its operation's response too", () => {
    const route = { kind: 'operation', operation: contractOperation('createCustomer'), pathParams: {} } as const;
    const tooLarge = { ...refusal(413, 'E_PAYLOAD_TOO_LARGE'), answeredBy: { kind: 'operation', route } } as const;
    expect(checkRefusal(tooLarge).problems.join('\n')).toMatch(/ratelimit-limit is missing/);
    expect(checkRefusal({ ...tooLarge, headers: new Headers({ ...Object.fromEntries(tooLarge.headers), ...rateLimitHeaders }) }).problems).toEqual([]);
  });
});

describe('routing a request to its operation', () => {
  it('finds every operation from its method and a concrete path', () => {
    for (const operation of contractOperations) {
      const path = operation.pathTemplate.replace(/\{[^}]+\}/g, 'x_1');
      const route = matchRoute(operation.method, path);
      expect(route.kind === 'operation' ? route.operation.operationId : route.kind, path).toBe(operation.operationId);
    }
    expect(matchRoute('GET', '/v1/partner/unknown').kind).toBe('not-found');
    expect(matchRoute('DELETE', '/v1/partner/customers')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'POST'] });
  });
});
