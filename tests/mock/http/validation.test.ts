/**
 * What the mock says when it refuses a request, beyond what the contract promises: the message of an unknown query
 * parameter names the ones the operation takes, a pattern's refusal is worded by the pattern's `x-pattern-description`,
 * and the request id it makes up when the one sent is refused has its own form (`req_…`). What the contract promises of requests that break its schemas (each refusal's status,
 * code and details) is tested in contract-tests/, against the mock and any sandbox: bodies in customers.test.ts
 * and companies.test.ts, parameters there and in reference-data.test.ts, x-request-id in requests.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { contract, customerBody, newIdempotencyKey, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

describe('the messages of a refusal', () => {
  it('name, for an unknown query parameter, the ones the operation takes', async () => {
    // customerId is not a filter of listCompanies (serviceCustomerId is): the message points to the right one.
    const details = validationDetails(await mock.call('/v1/partner/companies?customerId=cus_AAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(details).toEqual([{ in: 'query', field: '/customerId', code: 'E_UNKNOWN_FIELD', message: expect.stringContaining('serviceCustomerId') }]);
  });
});

describe('a refused x-request-id', () => {
  it('is answered with an id the mock generated, req_…', async () => {
    const response = await mock.call('/v1/partner/reference/states', { headers: { 'x-request-id': 'x'.repeat(201) } });
    expect(validationDetails(response)).toContainEqual(expect.objectContaining({ in: 'header', field: '/x-request-id' }));
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('a string too short', () => {
  it('is "Must not be empty." when it is empty, and counts characters in the singular and the plural', async () => {
    const empty = validationDetails(await mock.call('/v1/partner/customers', { body: customerBody({ firstName: '' }), idempotencyKey: newIdempotencyKey() }));
    expect(empty).toEqual([{ in: 'body', field: '/firstName', code: 'E_TOO_SHORT', message: 'Must not be empty.' }]);
    const short = validationDetails(await mock.call('/v1/partner/customers', { body: customerBody({ countryOfResidence: 'GB' }), idempotencyKey: newIdempotencyKey() }));
    expect(short).toEqual([{ in: 'body', field: '/countryOfResidence', code: 'E_TOO_SHORT', message: 'Must be at least 3 characters long.' }]);
  });
});

describe('a value refused by its pattern', () => {
  // A frontend shows the message beside the field: the rule in words, as the contract states it, never the regex.
  it.each([
    ['a country in lower case', { countryOfResidence: 'gbr' }, '/countryOfResidence', 'CountryCode'],
    ['a name that starts with a bidirectional-text control', { firstName: '\u202eAda' }, '/firstName', 'PersonName'],
  ])('is worded by the pattern\'s x-pattern-description: %s', async (_, overrides, field, schema) => {
    const described = contract.components.schemas[schema]['x-pattern-description'];
    expect(described).toMatch(/^Must .+\.$/);
    const details = validationDetails(await mock.call('/v1/partner/customers', { body: customerBody(overrides), idempotencyKey: newIdempotencyKey() }));
    expect(details).toEqual([{ in: 'body', field, code: 'E_PATTERN', message: described }]);
  });

  it('is worded so in a path parameter too', async () => {
    const details = validationDetails(await mock.call('/v1/partner/customers/com_5kHx9QaZ2mTw6RcN8vLp3JyD'));
    expect(details).toEqual([{ in: 'path', field: '/customerId', code: 'E_PATTERN', message: contract.components.schemas.CustomerId['x-pattern-description'] }]);
  });
});
