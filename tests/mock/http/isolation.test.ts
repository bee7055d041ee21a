/** Each key is its own partner: another partner's resources are not found, exactly like ones that never existed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company, Customer, Document } from '../../../generated/openapi.js';
import { createCompany, createCustomer, customerBody, llcBody, simulate, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type CallResult, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let customer: Customer;
let company: Company;
let document: Document;
const neverCustomer = 'cus_000000000000000000000000';
const neverCompany = 'com_000000000000000000000000';
const neverDocument = 'doc_000000000000000000000000';

beforeAll(async () => {
  mock = await startTestMock();
  customer = await createCustomer(mock, { key: sandboxKey });
  company = await createCompany(mock, llcBody(customer.serviceCustomerId), sandboxKey);
  expect((await simulate(mock, company.serviceCompanyId, { target: 'COMPLETED' }, sandboxKey)).status).toBe(200);
  const documents = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}/documents`, { key: sandboxKey });
  document = documents.json.payload.data[0];
  expect(document).toBeDefined();
});
afterAll(() => closeCheckingJournal(mock));

/** The error as a client sees it, with the ids named in the message made generic. */
function errorShape(response: CallResult, ids: string[]): unknown {
  let message = String(response.json.error.message);
  for (const id of ids) message = message.replaceAll(id, '<id>');
  return { status: response.status, code: response.json.error.code, message, payload: response.json.payload };
}

describe("another partner's key", () => {
  it('does not find the customer, as if it never existed', async () => {
    const theirs = await mock.call(`/v1/partner/customers/${customer.serviceCustomerId}`, { key: otherSandboxKey });
    const never = await mock.call(`/v1/partner/customers/${neverCustomer}`, { key: otherSandboxKey });
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe('E_NOT_FOUND');
    expect(errorShape(theirs, [customer.serviceCustomerId])).toEqual(errorShape(never, [neverCustomer]));
    // The owner does find it.
    expect((await mock.call(`/v1/partner/customers/${customer.serviceCustomerId}`, { key: sandboxKey })).status).toBe(200);
  });

  it('lists none of its customers, not even by email', async () => {
    expect((await mock.call('/v1/partner/customers', { key: otherSandboxKey })).json.payload).toEqual({ data: [], hasMore: false, nextCursor: null });
    const byEmail = await mock.call(`/v1/partner/customers?email=${encodeURIComponent(customer.email)}`, { key: otherSandboxKey });
    expect(byEmail.json.payload.data).toEqual([]);
    const own = await mock.call(`/v1/partner/customers?email=${encodeURIComponent(customer.email)}`, { key: sandboxKey });
    expect(own.json.payload.data.map((found: Customer) => found.serviceCustomerId)).toEqual([customer.serviceCustomerId]);
  });

  it('does not find the company, nor list it', async () => {
    const theirs = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}`, { key: otherSandboxKey });
    const never = await mock.call(`/v1/partner/companies/${neverCompany}`, { key: otherSandboxKey });
    expect(theirs.status).toBe(404);
    expect(errorShape(theirs, [company.serviceCompanyId])).toEqual(errorShape(never, [neverCompany]));
    expect((await mock.call('/v1/partner/companies', { key: otherSandboxKey })).json.payload.data).toEqual([]);
    const byCustomer = await mock.call(`/v1/partner/companies?serviceCustomerId=${customer.serviceCustomerId}`, { key: otherSandboxKey });
    expect(byCustomer.json.payload.data).toEqual([]);
  });

  it('does not find the documents, nor one document', async () => {
    const list = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}/documents`, { key: otherSandboxKey });
    expect(list.status).toBe(404);
    expect(list.json.error.code).toBe('E_NOT_FOUND');
    const one = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}/documents/${document.documentId}`, { key: otherSandboxKey });
    const never = await mock.call(`/v1/partner/companies/${neverCompany}/documents/${neverDocument}`, { key: otherSandboxKey });
    expect(one.status).toBe(404);
    expect(errorShape(one, [company.serviceCompanyId, document.documentId])).toEqual(errorShape(never, [neverCompany, neverDocument]));
  });

  it('cannot move its formation', async () => {
    const response = await simulate(mock, company.serviceCompanyId, { target: 'FAILED' }, otherSandboxKey);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('E_NOT_FOUND');
    const still = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}`, { key: sandboxKey });
    expect(still.json.payload.status).toBe('COMPLETED');
  });

  it('cannot form a company for its customer: E_CUSTOMER_NOT_FOUND', async () => {
    const response = await mock.call('/v1/partner/companies', { key: otherSandboxKey, body: llcBody(customer.serviceCustomerId), idempotencyKey: 'isolation-create' });
    expect(validationDetails(response)).toEqual([{ in: 'body', field: '/serviceCustomerId', code: 'E_CUSTOMER_NOT_FOUND', message: expect.any(String) }]);
  });

  it('creates its own customer with the same email, and its own Idempotency-Key scope', async () => {
    const key = 'shared-idempotency-key';
    const first = await mock.call('/v1/partner/customers', { key: sandboxKey, body: customerBody(), idempotencyKey: key });
    expect(first.status).toBe(200);
    const second = await mock.call('/v1/partner/customers', { key: otherSandboxKey, body: customerBody({ email: customer.email }), idempotencyKey: key });
    expect(second.status, 'the same key with another body is not a conflict across partners').toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('false');
    expect(second.json.payload.created).toBe(true);
    expect(second.json.payload.serviceCustomerId).not.toBe(customer.serviceCustomerId);
  });
});
