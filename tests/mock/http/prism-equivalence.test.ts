/**
 * The compiled request validators against Prism's engine, the reference they stand in for: the same verdict on
 * every request of a corpus that spans the operations (bodies, query, path and headers, good and bad). And the
 * Prism fallback itself: an operation the mock has no handler for is answered from the contract's example.
 */
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CCorpFormationRequest, LlcFormationRequest } from '../../../generated/openapi.js';
import type { ContractDocument } from '../../../contract-model/document.ts';
import { listOperations } from '../../../contract-model/operations.ts';
import { createRouter } from '../../../contract-model/router.ts';
import { createPrismEngine } from '../../../mock/pipeline/prism-engine.ts';
import { compileRequestValidator, type RequestValidator } from '../../../mock/pipeline/request-validator.ts';
import { schemaCompilerOf } from '../../../contract-model/schema-compiler.ts';
import { contract, customerBody, example } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  valid: boolean;
}

const customer = 'cus_8sWq2LmX4pTn7VbK3dRz9YhC';
const company = 'com_5kHx9QaZ2mTw6RcN8vLp3JyD';
const documentId = 'doc_3fGh7JkL2zXc9VbN4mQw8ErT';
const llc = (change: (body: LlcFormationRequest) => void = () => undefined) => {
  const body = example<LlcFormationRequest>('LlcFormationRequest');
  change(body);
  return body;
};
const ccorp = (change: (body: CCorpFormationRequest) => void = () => undefined) => {
  const body = example<CCorpFormationRequest>('CCorpFormationRequest');
  change(body);
  return body;
};
const customers = '/v1/partner/customers';
const companies = '/v1/partner/companies';
const simulatePath = `/v1/partner/sandbox/companies/${company}/simulate-formation`;
const contentPath = `/v1/partner/companies/${company}/documents/${documentId}/content`;

const corpus: Case[] = [
  // createCustomer
  { name: 'customer: the example', method: 'POST', path: customers, body: customerBody(), valid: true },
  { name: 'customer: no phone number', method: 'POST', path: customers, body: (({ phoneNumber: _p, ...rest }) => rest)(customerBody()), valid: true },
  { name: 'customer: unknown property', method: 'POST', path: customers, body: { ...customerBody(), nickname: 'Ada' }, valid: false },
  { name: 'customer: email missing', method: 'POST', path: customers, body: (({ email: _e, ...rest }) => rest)(customerBody()), valid: false },
  { name: 'customer: email malformed', method: 'POST', path: customers, body: customerBody({ email: 'ada-at-example.com' }), valid: false },
  { name: 'customer: phone not E.164', method: 'POST', path: customers, body: customerBody({ phoneNumber: '0044 7700 900123' }), valid: false },
  { name: 'customer: country in lower case', method: 'POST', path: customers, body: customerBody({ countryOfResidence: 'gbr' }), valid: false },
  { name: 'customer: unknown but well-formed country', method: 'POST', path: customers, body: customerBody({ countryOfResidence: 'XXX' }), valid: true },
  { name: 'customer: empty first name', method: 'POST', path: customers, body: customerBody({ firstName: '' }), valid: false },
  { name: 'customer: first name too long', method: 'POST', path: customers, body: customerBody({ firstName: 'A'.repeat(101) }), valid: false },
  { name: 'customer: an array', method: 'POST', path: customers, body: [customerBody()], valid: false },
  { name: 'customer: no body', method: 'POST', path: customers, valid: false },
  { name: 'customer: invalid x-request-id', method: 'POST', path: customers, body: customerBody(), headers: { 'x-request-id': 'r'.repeat(201) }, valid: false },
  // createCompany
  { name: 'company: the LLC example', method: 'POST', path: companies, body: llc(), valid: true },
  { name: 'company: LLC without entityType', method: 'POST', path: companies, body: llc((b) => delete b.entityType), valid: true },
  { name: 'company: the CCorp example', method: 'POST', path: companies, body: ccorp(), valid: true },
  { name: 'company: entityType Partnership', method: 'POST', path: companies, body: { ...llc(), entityType: 'Partnership' }, valid: false },
  { name: 'company: CCorp without shareStructure', method: 'POST', path: companies, body: ccorp((b) => delete (b as Partial<CCorpFormationRequest>).shareStructure), valid: false },
  { name: 'company: CCorp fields on an LLC', method: 'POST', path: companies, body: { ...llc(), shareStructure: ccorp().shareStructure }, valid: false },
  { name: 'company: ownership over 100', method: 'POST', path: companies, body: llc((b) => (b.members[0]!.ownershipPercent = 101)), valid: false },
  { name: 'company: ownership 0', method: 'POST', path: companies, body: llc((b) => (b.members[0]!.ownershipPercent = 0)), valid: false },
  { name: 'company: ownership with three decimals', method: 'POST', path: companies, body: llc((b) => (b.members[0]!.ownershipPercent = 12.345)), valid: false },
  { name: 'company: ownership 12.5', method: 'POST', path: companies, body: llc((b) => (b.members[0]!.ownershipPercent = 12.5)), valid: true },
  { name: 'company: four name options', method: 'POST', path: companies, body: llc((b) => (b.nameOptions = ['A LLC', 'B LLC', 'C LLC', 'D LLC'])), valid: false },
  { name: 'company: a name option twice', method: 'POST', path: companies, body: llc((b) => (b.nameOptions = ['A B LLC', 'A B LLC'])), valid: false },
  { name: 'company: malformed taxId', method: 'POST', path: companies, body: llc((b) => (b.responsibleParty.taxId = '123456789')), valid: false },
  { name: 'company: state in lower case', method: 'POST', path: companies, body: llc((b) => (b.state = 'de' as never)), valid: false },
  { name: 'company: unknown but well-formed state (a rule, not the schema)', method: 'POST', path: companies, body: llc((b) => (b.state = 'PR' as never)), valid: true },
  { name: 'company: five-digit NAICS code', method: 'POST', path: companies, body: llc((b) => (b.naicsCode = '54151')), valid: false },
  { name: 'company: address line with a leading space', method: 'POST', path: companies, body: llc((b) => (b.businessAddress.line1 = ' 251 Little Falls Drive')), valid: false },
  { name: 'company: a role twice in one member', method: 'POST', path: companies, body: ccorp((b) => (b.executiveMembers[0]!.roles = ['PRESIDENT', 'PRESIDENT'])), valid: false },
  { name: 'company: par value as a number', method: 'POST', path: companies, body: ccorp((b) => ((b.shareStructure as { parValueUsd: unknown }).parValueUsd = 0.00001)), valid: false },
  { name: 'company: fractional authorized shares', method: 'POST', path: companies, body: ccorp((b) => (b.shareStructure.authorizedShares = 1.5)), valid: false },
  // simulateCompanyFormation
  { name: 'simulate: COMPLETED', method: 'POST', path: simulatePath, body: { target: 'COMPLETED' }, valid: true },
  { name: 'simulate: empty object', method: 'POST', path: simulatePath, body: {}, valid: true },
  { name: 'simulate: FAILED with a reason', method: 'POST', path: simulatePath, body: { target: 'FAILED', failureReason: 'NAME_UNAVAILABLE' }, valid: true },
  { name: 'simulate: unknown target', method: 'POST', path: simulatePath, body: { target: 'LATER' }, valid: false },
  { name: 'simulate: unknown reason', method: 'POST', path: simulatePath, body: { target: 'FAILED', failureReason: 'BAD_LUCK' }, valid: false },
  { name: 'simulate: unknown property', method: 'POST', path: simulatePath, body: { target: 'NEXT', force: true }, valid: false },
  { name: 'simulate: malformed company id', method: 'POST', path: '/v1/partner/sandbox/companies/com_123/simulate-formation', body: { target: 'NEXT' }, valid: false },
  // list and get operations
  { name: 'customers: limit 20', method: 'GET', path: customers, query: { limit: '20' }, valid: true },
  { name: 'customers: limit 0', method: 'GET', path: customers, query: { limit: '0' }, valid: false },
  { name: 'customers: limit 500', method: 'GET', path: customers, query: { limit: '500' }, valid: false },
  { name: 'customers: limit abc', method: 'GET', path: customers, query: { limit: 'abc' }, valid: false },
  { name: 'customers: by email', method: 'GET', path: customers, query: { email: 'ada@example.com' }, valid: true },
  { name: 'customers: by malformed email', method: 'GET', path: customers, query: { email: 'ada' }, valid: false },
  { name: 'customers: cursor with padding', method: 'GET', path: customers, query: { cursor: 'abc=' }, valid: false },
  { name: 'customers: well-formed cursor', method: 'GET', path: customers, query: { cursor: 'eyJvIjoyMH0' }, valid: true },
  { name: 'customer: by id', method: 'GET', path: `${customers}/${customer}`, valid: true },
  { name: 'customer: by malformed id', method: 'GET', path: `${customers}/nope`, valid: false },
  { name: 'companies: by status', method: 'GET', path: companies, query: { status: 'PENDING', entityType: 'CCorp' }, valid: true },
  { name: 'companies: unknown status', method: 'GET', path: companies, query: { status: 'DONE' }, valid: false },
  { name: 'companies: malformed customer filter', method: 'GET', path: companies, query: { serviceCustomerId: 'cus_1' }, valid: false },
  { name: 'company: by a customer id', method: 'GET', path: `${companies}/${customer}`, valid: false },
  { name: 'documents: of a company', method: 'GET', path: `${companies}/${company}/documents`, query: { limit: '3' }, valid: true },
  { name: 'document: malformed id', method: 'GET', path: `${companies}/${company}/documents/doc_1`, valid: false },
  { name: 'naics: by words', method: 'GET', path: '/v1/partner/reference/naics-codes', query: { q: 'software publishers' }, valid: true },
  { name: 'naics: query with a trailing space', method: 'GET', path: '/v1/partner/reference/naics-codes', query: { q: 'software ' }, valid: false },
  { name: 'fees: by state', method: 'GET', path: '/v1/partner/reference/filing-fees', query: { state: 'DE' }, valid: true },
  { name: 'fees: state by name', method: 'GET', path: '/v1/partner/reference/filing-fees', query: { state: 'Delaware' }, valid: false },
  { name: 'fees: unknown entity type', method: 'GET', path: '/v1/partner/reference/filing-fees', query: { entityType: 'Partnership' }, valid: false },
  { name: 'download: well-formed', method: 'GET', path: contentPath, query: { expires: '1795344900', signature: 'kM3r8Qx0Vb7wYt2LpN5sJd9HfA1cZe4GgU6iOo0TqRk' }, valid: true },
  { name: 'download: no signature', method: 'GET', path: contentPath, query: { expires: '1795344900' }, valid: false },
  { name: 'download: negative expiry', method: 'GET', path: contentPath, query: { expires: '-1', signature: 'abc' }, valid: false },
  { name: 'download: expiry not a number', method: 'GET', path: contentPath, query: { expires: 'soon', signature: 'abc' }, valid: false },
];

/**
 * Where the two disagree, and the compiled validator is the one that follows the contract. Prism validates
 * `multipleOf: 0.01` by plain float division, so 33.33 (33.33 / 0.01 = 3332.9999999999995) is refused though it
 * has two decimals, which the contract allows ("in percent with at most two decimals").
 */
const knownDivergences: Case[] = [
  { name: 'company: ownership 33.33 + 33.33 + 33.34', method: 'POST', path: companies, valid: true, body: llc((b) => (b.members = [33.33, 33.33, 33.34].map((ownershipPercent, i) => ({ ...b.members[0]!, email: `m${i}@example.com`, ownershipPercent })))) },
];

const document = contract as ContractDocument;
const operations = listOperations(document);
const route = createRouter(operations);
const compiler = schemaCompilerOf(document);
const validators = new Map<string, RequestValidator>();
const prism = createPrismEngine(document);

function compiledVerdict(testCase: Case): boolean {
  const match = route(testCase.method, testCase.path);
  if (match.kind !== 'operation') throw new Error(`${testCase.name}: no operation at ${testCase.method} ${testCase.path}`);
  let validator = validators.get(match.operation.operationId);
  if (!validator) {
    validator = compileRequestValidator(document, match.operation, compiler);
    validators.set(match.operation.operationId, validator);
  }
  return validator({ pathParams: match.pathParams, query: new URLSearchParams(testCase.query ?? {}), headers: testCase.headers ?? {}, body: testCase.body }).ok;
}

async function prismVerdict(testCase: Case): Promise<{ valid: boolean; violations: unknown[] }> {
  const body = testCase.body === undefined ? undefined : JSON.stringify(testCase.body);
  // The headers other steps answer for (auth, idempotency, media type) are given valid values: only the
  // compiled validator's share of the work is compared.
  const headers: Record<string, string> = {
    authorization: sandboxKey,
    ...(testCase.method === 'POST' ? { 'idempotency-key': '0b6f5c1e-8a63-4d9e-9a43-2f1f4f0b7d21', 'content-type': 'application/json' } : {}),
    ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    ...testCase.headers,
  };
  return prism.validate({ method: testCase.method.toLowerCase() as 'get' | 'post', url: { path: testCase.path, query: testCase.query ?? {} }, headers, body: testCase.body });
}

describe('the compiled request validator and Prism', () => {
  it('have a corpus of at least 30 requests over most operations', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    const covered = new Set(corpus.map((testCase) => (route(testCase.method, testCase.path) as { operation: { operationId: string } }).operation.operationId));
    expect(covered.size).toBeGreaterThanOrEqual(10);
    expect(corpus.some((testCase) => testCase.valid)).toBe(true);
    expect(corpus.some((testCase) => !testCase.valid)).toBe(true);
  });

  it.each(corpus)('agree on $name', async (testCase) => {
    const fromPrism = await prismVerdict(testCase);
    expect(compiledVerdict(testCase), 'compiled validator').toBe(testCase.valid);
    expect(fromPrism.valid, `Prism: ${JSON.stringify(fromPrism.violations)}`).toBe(testCase.valid);
  });

  it.each(knownDivergences)('differ only where Prism is wrong: $name', async (testCase) => {
    expect(compiledVerdict(testCase)).toBe(testCase.valid);
    expect((await prismVerdict(testCase)).valid).toBe(!testCase.valid);
  });
});

describe('an operation the mock has no handler for, with --unhandled-operations examples', () => {
  let mock: TestMock | undefined;
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mock-contract-'));
    const extended = structuredClone(contract);
    extended.paths['/v1/partner/ping'] = {
      get: {
        operationId: 'ping',
        summary: 'Checks the key',
        tags: ['Reference data'],
        parameters: [{ $ref: '#/components/parameters/RequestIdHeader' }],
        responses: {
          '200': {
            description: 'The key works.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['payload', 'error'],
                  properties: {
                    payload: { type: 'object', required: ['pong'], properties: { pong: { type: 'boolean' }, region: { type: 'string' } } },
                    error: { $ref: '#/components/schemas/NoError' },
                  },
                },
                example: { payload: { pong: true, region: 'sandbox-example-1' }, error: {} },
              },
            },
          },
          '401': { $ref: '#/components/responses/Unauthorized' },
        },
      },
    };
    const path = join(directory, 'openapi.json');
    await writeFile(path, JSON.stringify(extended));
    await expect(startTestMock({ contractPath: path })).rejects.toThrow(/no handler for: ping\..*--unhandled-operations examples/);
    mock = await startTestMock({ contractPath: path, unhandledOperations: 'examples' });
  });

  afterAll(async () => {
    await closeCheckingJournal(mock);
    await rm(directory, { recursive: true, force: true });
  });

  it('is answered at once with the example of its contract', async () => {
    const response = await mock!.call('/v1/partner/ping');
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    expect(response.json).toEqual({ payload: { pong: true, region: 'sandbox-example-1' }, error: {} });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('still takes the security it inherits from the contract', async () => {
    const response = await mock!.call('/v1/partner/ping', { key: null });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('E_AUTH_MISSING');
  });
});
