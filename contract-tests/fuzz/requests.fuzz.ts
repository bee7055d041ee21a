/**
 * Property-based fuzzing of the target (the mock by default; a sandbox by URL and key, like `test:sandbox`).
 *
 * 1. Every operation gets requests generated from its own schemas: whatever the answer, it is no 5xx, and it is one
 *    the contract documents (the suite's response check runs on each, as in the contract suite).
 * 2. Valid requests are broken in one way each (types, limits, unknown fields, encodings, headers, query): each is
 *    refused with the documented status and code, at the broken field, and a refused create creates nothing.
 * 3. Bodies made large and deep where they hurt a validator most (arrays of thousands of broken items, tens of
 *    thousands of unknown properties, nesting thousands of levels deep, anywhere in a generated body): each is
 *    refused as 400 E_VALIDATION_FAILED with at most the contract's number of details, or 413 past the body limit.
 *
 * The seed is printed first; `FUZZ_SEED=<seed> npm run test:fuzz` replays a run, `FUZZ_RUNS=<n>` sets the cases
 * per property.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractFacts } from '../../generated/contract-facts.ts';
import { customerRequest } from '../support/fixtures.ts';
import { rawRequest, takeViolations, type RawCall, type RawResult } from '../support/observe.ts';
import { operations, placesOf, replaceAt, requestFor, runs, seed } from './generators.ts';

beforeAll(() => {
  console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
});

const settings = (numRuns: number) => ({ seed, numRuns: runs(numRuns), endOnFailure: true });

/** The violations the suite's response check found in this case: a property fails on its first one. */
function expectNoViolation(result: RawResult, what: string): void {
  expect(result.status, `${what}: a 5xx`).toBeLessThan(500);
  const violations = takeViolations();
  expect(violations, `${what}: answers outside the contract`).toEqual([]);
}

describe('requests generated from the contract', () => {
  it.each(operations.map((operation) => [operation.operationId, operation] as const))('%s: no 5xx, every answer one the contract documents', async (_id, operation) => {
    await fc.assert(
      fc.asyncProperty(requestFor(operation), async (pending) => {
        const request = await pending;
        const result = await rawRequest({ method: operation.method, path: request.path, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });
        expectNoViolation(result, `${operation.method} ${request.path}`);
      }),
      settings(60),
    );
  });
});

interface Mutation {
  name: string;
  /** The call, from a valid createCustomer body (or a listCustomers query) and a random string. */
  call: (body: Record<string, unknown>, noise: string) => RawCall;
  expected: { status: number; code: string; detail?: { in: string; field: (noise: string) => string; code: string } };
}

const create = (body: string, headers: Record<string, string> = {}): RawCall => ({
  method: 'POST',
  path: '/v1/partner/customers',
  headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...headers },
  body,
});
const fieldName = (noise: string) => `x${noise.replace(/[^A-Za-z0-9]/g, '')}`;
const validation = (where: string, field: (noise: string) => string, code: string) => ({ status: 400, code: 'E_VALIDATION_FAILED', detail: { in: where, field, code } });

const mutations: Mutation[] = [
  { name: 'an unknown body property', call: (body, noise) => create(JSON.stringify({ ...body, [fieldName(noise)]: noise })), expected: validation('body', (noise) => `/${fieldName(noise)}`, 'E_UNKNOWN_FIELD') },
  { name: 'a property of the wrong type', call: (body, noise) => create(JSON.stringify({ ...body, firstName: noise.length })), expected: validation('body', () => '/firstName', 'E_TYPE') },
  { name: 'a string over its maxLength', call: (body, noise) => create(JSON.stringify({ ...body, lastName: `L${'a'.repeat(100)}${noise}` })), expected: validation('body', () => '/lastName', 'E_TOO_LONG') },
  { name: 'a required property missing', call: (body) => create(JSON.stringify({ ...body, email: undefined })), expected: validation('body', () => '/email', 'E_REQUIRED') },
  { name: 'a bidirectional-text control in a name', call: (body, noise) => create(JSON.stringify({ ...body, firstName: `\u202e${noise}Ada` })), expected: validation('body', () => '/firstName', 'E_PATTERN') },
  { name: 'a body that is not UTF-8', call: (body) => ({ ...create(''), body: Buffer.concat([Buffer.from(JSON.stringify(body).slice(0, -1)), Buffer.from(',"lastName":"Ad\xff\xfe"}', 'latin1')]) }), expected: { status: 400, code: 'E_MALFORMED_JSON' } },
  { name: 'a duplicate key', call: (body) => create(`{"email":"not an email",${JSON.stringify(body).slice(1)}`), expected: { status: 400, code: 'E_MALFORMED_JSON' } },
  { name: 'truncated JSON', call: (body, noise) => create(JSON.stringify(body).slice(0, 5 + (noise.length % 20))), expected: { status: 400, code: 'E_MALFORMED_JSON' } },
  { name: 'a media type other than JSON', call: (body) => create(JSON.stringify(body), { 'content-type': 'text/plain' }), expected: { status: 415, code: 'E_UNSUPPORTED_MEDIA_TYPE' } },
  { name: 'a malformed Idempotency-Key', call: (body, noise) => create(JSON.stringify(body), { 'idempotency-key': `bad key ${noise}` }), expected: { status: 400, code: 'E_IDEMPOTENCY_KEY_INVALID' } },
  { name: 'an x-request-id too long', call: (body, noise) => ({ ...create(JSON.stringify(body)), requestId: `r${'x'.repeat(200)}${noise}` }), expected: validation('header', () => '/x-request-id', 'E_TOO_LONG') },
  { name: 'a key that is not one', call: (body, noise) => ({ ...create(JSON.stringify(body)), authorization: `key-${noise}` }), expected: { status: 401, code: 'E_AUTH_INVALID' } },
  { name: 'an unknown query parameter', call: (_body, noise) => ({ method: 'GET', path: `/v1/partner/customers?${fieldName(noise)}=1` }), expected: validation('query', (noise) => `/${fieldName(noise)}`, 'E_UNKNOWN_FIELD') },
  { name: 'a repeated query parameter', call: (_body, noise) => ({ method: 'GET', path: `/v1/partner/customers?limit=1&limit=${(noise.length % 100) + 1}` }), expected: validation('query', () => '/limit', 'E_PARAMETER_REPEATED') },
  { name: 'a limit out of range', call: (_body, noise) => ({ method: 'GET', path: `/v1/partner/customers?limit=${101 + noise.length}` }), expected: validation('query', () => '/limit', 'E_OUT_OF_RANGE') },
];

describe('requests broken in one way', () => {
  it('are refused with the documented status and code, at the field, and change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...mutations), fc.string({ minLength: 1, maxLength: 12 }), async (mutation, noise) => {
        const body = customerRequest() as unknown as Record<string, unknown>;
        const call = mutation.call(body, noise);
        const result = await rawRequest(call);
        expectNoViolation(result, mutation.name);
        expect([result.status, result.errorCode], mutation.name).toEqual([mutation.expected.status, mutation.expected.code]);
        const { detail } = mutation.expected;
        if (detail) expect(result.details, mutation.name).toContainEqual(expect.objectContaining({ in: detail.in, field: detail.field(noise), code: detail.code }));
        if (call.method === 'POST') {
          // Refused, so nothing was created for this (unique) email.
          const listed = await rawRequest({ method: 'GET', path: `/v1/partner/customers?email=${encodeURIComponent(String(body.email))}` });
          expect((listed.json as { payload: { data: unknown[] } }).payload.data, `${mutation.name} created a customer`).toEqual([]);
        }
      }),
      settings(mutations.length * 100),
    );
  });
});

describe('every operation, broken in one way', () => {
  it.each(operations.map((operation) => [operation.operationId, operation] as const))('%s: refuses an unknown query parameter and a key that is not one', async (_id, operation) => {
    await fc.assert(
      fc.asyncProperty(requestFor(operation), fc.string({ minLength: 1, maxLength: 12 }), fc.boolean(), async (pending, noise, breakKey) => {
        const request = await pending;
        const base = { method: operation.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) };
        if (breakKey && operation.apiKey === 'required') {
          const result = await rawRequest({ ...base, path: request.path, authorization: `key-${noise}` });
          expectNoViolation(result, `${operation.operationId} with a junk key`);
          expect([result.status, result.errorCode]).toEqual([401, 'E_AUTH_INVALID']);
          return;
        }
        const name = fieldName(noise);
        const path = `${request.path}${request.path.includes('?') ? '&' : '?'}${name}=1`;
        const result = await rawRequest({ ...base, path });
        expectNoViolation(result, `${operation.operationId} with ?${name}`);
        if (operation.signedQuery) {
          // A signed URL with anything added is an altered one.
          expect([result.status, result.errorCode]).toEqual([403, 'E_DOWNLOAD_URL_INVALID']);
        } else {
          expect([result.status, result.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
          expect(result.details).toContainEqual(expect.objectContaining({ in: 'query', field: `/${name}`, code: 'E_UNKNOWN_FIELD' }));
        }
      }),
      settings(30),
    );
  });
});

/** A way to make a body as costly to check as it can be, at one of its places. */
const growth = fc.oneof(
  // Up to 300,000 items: past the body limit for most, and for empty objects about what fits under it.
  fc.record({ kind: fc.constant('long array' as const), count: fc.integer({ min: 1_000, max: 300_000 }), item: fc.constantFrom<unknown>({}, 0, null, 'x', [], { unknown: 1 }) }),
  fc.record({ kind: fc.constant('unknown properties' as const), count: fc.integer({ min: 1_000, max: 40_000 }) }),
  fc.record({ kind: fc.constant('deep nesting' as const), count: fc.integer({ min: 1_000, max: 100_000 }) }),
);
type Growth = typeof growth extends fc.Arbitrary<infer T> ? T : never;

/** The grown value as JSON text: written out, since a value nested this deep overflows JSON.stringify's stack. */
function grown(old: unknown, how: Growth): string {
  if (how.kind === 'long array') return `[${Array(how.count).fill(JSON.stringify(how.item)).join(',')}]`;
  if (how.kind === 'deep nesting') return `${'['.repeat(how.count)}${']'.repeat(how.count)}`;
  const kept = old !== null && typeof old === 'object' && !Array.isArray(old) ? JSON.stringify(old).slice(1, -1) : '';
  const flood = Array.from({ length: how.count }, (_, index) => `"unknown${index}":${index}`).join(',');
  return `{${kept === '' ? '' : `${kept},`}${flood}}`;
}

const bodyOperations = operations.filter((operation) => operation.requestBody?.content.has('application/json'));
const { maxItems: maxDetails } = contractFacts.errorDetails;

describe('bodies made large and deep', () => {
  it.each(bodyOperations.map((operation) => [operation.operationId, operation] as const))('%s: refused as any invalid body, within the contract\'s number of details', async (_id, operation) => {
    await fc.assert(
      fc.asyncProperty(requestFor(operation), growth, fc.nat(), async (pending, how, pick) => {
        const request = await pending;
        const body: unknown = JSON.parse(request.body ?? '{}');
        // An array of the body, when it has one, half of the time: where a validator loops.
        const all = placesOf(body);
        const arrays = all.filter((candidate) => candidate.kind === 'array');
        const places = arrays.length > 0 && pick % 2 === 0 ? arrays : all;
        const { place } = places[Math.floor(pick / 2) % places.length] ?? { place: [] };
        const marker = `"grown-${crypto.randomUUID()}"`;
        let old: unknown;
        const text = JSON.stringify(replaceAt(body, place, (value) => ((old = value), JSON.parse(marker)))).replace(marker, () => grown(old, how));
        const what = `${operation.operationId}: ${how.kind} (${how.count}) at /${place.join('/')}`;
        const result = await rawRequest({ method: operation.method, path: request.path, headers: request.headers, body: text });
        expectNoViolation(result, what);
        if (Buffer.byteLength(text) > contractFacts.limits.requestBodyMaxBytes) {
          expect([result.status, result.errorCode], what).toEqual([413, 'E_PAYLOAD_TOO_LARGE']);
          return;
        }
        expect([result.status, result.errorCode], what).toEqual([400, 'E_VALIDATION_FAILED']);
        expect(result.details.length, what).toBeGreaterThan(0);
        expect(result.details.length, what).toBeLessThanOrEqual(maxDetails);
      }),
      settings(25),
    );
  });
});
