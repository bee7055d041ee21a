/**
 * What the mock says when it refuses a request, beyond what the contract promises: the message of an unknown query
 * parameter names the ones the operation takes, and the request id it makes up when the one sent is refused has
 * its own form (`req_…`). What the contract promises of requests that break its schemas (each refusal's status,
 * code and details) is tested in contract-tests/, against the mock and any sandbox: bodies in customers.test.ts
 * and companies.test.ts, parameters there and in reference-data.test.ts, x-request-id in requests.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { validationDetails } from '../support/http-fixtures.ts';
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
