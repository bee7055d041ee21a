/**
 * Requests whose body, parameters or headers break the contract's schemas, against the mock: each is a 4xx with
 * the contract's code and details, never a 422 or a 500. What the contract promises of every request's body
 * step (415, E_MALFORMED_JSON, 413 whether sent whole or chunked) and routing (404, 405 with Allow) is tested in
 * contract-tests/requests.test.ts, against the mock and any sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';
import { ccorpBody, createCustomer, customerBody, llcBody, newIdempotencyKey, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';

let mock: TestMock;
let customerId: string;
const statuses: number[] = [];

beforeAll(async () => {
  mock = await startTestMock();
  customerId = (await createCustomer(mock)).serviceCustomerId;
});
afterAll(() => closeCheckingJournal(mock));

function seen(response: CallResult): CallResult {
  statuses.push(response.status);
  return response;
}

const postCustomer = async (body: unknown) => seen(await mock.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey() }));
const postCompany = async (body: unknown) => seen(await mock.call('/v1/partner/companies', { body, idempotencyKey: newIdempotencyKey() }));
const get = async (path: string) => seen(await mock.call(path));

describe('request bodies', () => {
  it('refuse an unknown property with E_UNKNOWN_FIELD at its pointer', async () => {
    const details = validationDetails(await postCustomer({ ...customerBody(), nickname: 'Ada' }));
    expect(details).toEqual([{ in: 'body', field: '/nickname', code: 'E_UNKNOWN_FIELD', message: expect.any(String) }]);
  });

  it('refuse an unknown property deep in the body with its full pointer', async () => {
    const body = llcBody(customerId);
    (body.businessAddress as unknown as Record<string, unknown>).county = 'New Castle';
    const details = validationDetails(await postCompany(body));
    expect(details).toEqual([{ in: 'body', field: '/businessAddress/county', code: 'E_UNKNOWN_FIELD', message: expect.any(String) }]);
  });

  it('point into arrays: an ownership over 100 is E_OUT_OF_RANGE at /members/0/ownershipPercent', async () => {
    const body = llcBody(customerId);
    body.members = [{ ...body.members[0]!, ownershipPercent: 101 }];
    const details = validationDetails(await postCompany(body));
    expect(details).toContainEqual({ in: 'body', field: '/members/0/ownershipPercent', code: 'E_OUT_OF_RANGE', message: expect.any(String) });
    expect(details.every((detail) => detail.field.startsWith('/members/0/'))).toBe(true);
  });

  it('list every problem, each with its own code', async () => {
    const details = validationDetails(await postCustomer({ email: 'not-an-email', firstName: '', countryOfResidence: 'gb', phoneNumber: 12 }));
    const found = details.map(({ in: location, field, code }) => ({ in: location, field, code }));
    expect(found).toEqual(
      expect.arrayContaining([
        { in: 'body', field: '/lastName', code: 'E_REQUIRED' },
        { in: 'body', field: '/email', code: 'E_FORMAT' },
        { in: 'body', field: '/firstName', code: 'E_TOO_SHORT' },
        { in: 'body', field: '/countryOfResidence', code: 'E_PATTERN' },
        { in: 'body', field: '/phoneNumber', code: 'E_TYPE' },
      ]),
    );
  });

  it('refuse a body that is not an object, or missing', async () => {
    expect(validationDetails(await postCustomer([1, 2]))).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_TYPE' }));
    expect(validationDetails(await postCompany('LLC'))).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_TYPE' }));
    const empty = seen(await mock.call('/v1/partner/customers', { method: 'POST', idempotencyKey: newIdempotencyKey() }));
    expect(validationDetails(empty)).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_REQUIRED' }));
  });

  it('validate a company without entityType as an LLC', async () => {
    const { entityType: _omitted, ...withoutType } = llcBody(customerId);
    const ok = await postCompany(withoutType);
    expect(ok.status, JSON.stringify(ok.json)).toBe(202);
    expect(ok.json.payload.entityType).toBe('LLC');

    // CCorp-only properties are unknown to the LLC variant: the errors speak of the LLC only.
    const { entityType: _ccorp, ...ccorpWithoutType } = ccorpBody(customerId);
    const details = validationDetails(await postCompany(ccorpWithoutType));
    expect(details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: '/members', code: 'E_REQUIRED' }),
        expect.objectContaining({ field: '/executiveMembers', code: 'E_UNKNOWN_FIELD' }),
        expect.objectContaining({ field: '/shareStructure', code: 'E_UNKNOWN_FIELD' }),
      ]),
    );
  });

  it('refuse an entityType that is neither LLC nor CCorp with E_NOT_ALLOWED_VALUE at /entityType', async () => {
    const details = validationDetails(await postCompany({ ...llcBody(customerId), entityType: 'Partnership' }));
    expect(details).toEqual([{ in: 'body', field: '/entityType', code: 'E_NOT_ALLOWED_VALUE', message: expect.any(String) }]);
  });

  it('validate a CCorp against the CCorp variant only', async () => {
    const body = ccorpBody(customerId);
    body.shareStructure = { ...body.shareStructure, authorizedShares: 0 };
    const details = validationDetails(await postCompany(body));
    expect(details).toEqual([{ in: 'body', field: '/shareStructure/authorizedShares', code: 'E_OUT_OF_RANGE', message: expect.any(String) }]);
  });
});

describe('parameters', () => {
  it('refuse limit=500 in the query at /limit', async () => {
    const details = validationDetails(await get('/v1/partner/customers?limit=500'));
    expect(details).toEqual([{ in: 'query', field: '/limit', code: 'E_OUT_OF_RANGE', message: expect.any(String) }]);
  });

  it('refuse a limit that is not an integer', async () => {
    expect(validationDetails(await get('/v1/partner/reference/states?limit=abc'))).toContainEqual(expect.objectContaining({ in: 'query', field: '/limit', code: 'E_TYPE' }));
    expect(validationDetails(await get('/v1/partner/reference/states?limit=1.5'))).toContainEqual(expect.objectContaining({ in: 'query', field: '/limit', code: 'E_TYPE' }));
  });

  it('refuse an unknown query parameter with E_UNKNOWN_FIELD, naming the ones the operation takes', async () => {
    // customerId is not a filter of listCompanies (serviceCustomerId is): it must not silently list everything.
    const details = validationDetails(await get('/v1/partner/companies?customerId=cus_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(details).toEqual([{ in: 'query', field: '/customerId', code: 'E_UNKNOWN_FIELD', message: expect.stringContaining('serviceCustomerId') }]);
    expect(validationDetails(await get('/v1/partner/reference/naics-codes?search=software'))).toEqual([
      expect.objectContaining({ in: 'query', field: '/search', code: 'E_UNKNOWN_FIELD' }),
    ]);
  });

  it('refuse a query parameter given twice with E_PARAMETER_REPEATED', async () => {
    expect(validationDetails(await get('/v1/partner/reference/states?limit=1&limit=100'))).toEqual([
      { in: 'query', field: '/limit', code: 'E_PARAMETER_REPEATED', message: expect.any(String) },
    ]);
  });

  it('refuse an enum query value with E_NOT_ALLOWED_VALUE', async () => {
    expect(validationDetails(await get('/v1/partner/companies?status=DONE'))).toEqual([
      { in: 'query', field: '/status', code: 'E_NOT_ALLOWED_VALUE', message: expect.any(String) },
    ]);
  });

  it('refuse a malformed path id in the path', async () => {
    const details = validationDetails(await get('/v1/partner/customers/nope'));
    expect(details.length).toBeGreaterThan(0);
    expect(details.every((detail) => detail.in === 'path' && detail.field === '/customerId')).toBe(true);
    expect(details.map((detail) => detail.code)).toContain('E_PATTERN');
  });

  it('refuse an id of the wrong kind', async () => {
    const details = validationDetails(await get(`/v1/partner/companies/${customerId}`));
    expect(details).toEqual([{ in: 'path', field: '/companyId', code: 'E_PATTERN', message: expect.any(String) }]);
  });

  it('refuse an invalid x-request-id header, and still answer with a generated id', async () => {
    const response = seen(await mock.call('/v1/partner/reference/states', { headers: { 'x-request-id': 'x'.repeat(201) } }));
    expect(validationDetails(response)).toContainEqual(expect.objectContaining({ in: 'header', field: '/x-request-id' }));
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('all of the above', () => {
  it('were answered without a 422 or a 5xx', () => {
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status === 422 || status >= 500)).toEqual([]);
  });
});
