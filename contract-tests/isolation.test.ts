/**
 * Isolation between partners: a second partner's key sees none of the first partner's customers, companies or
 * documents — their ids answer 404 exactly like ids that never existed, lists are empty, and a formation naming
 * the other partner's customer is refused with E_CUSTOMER_NOT_FOUND. Idempotency keys are per partner too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Company, Customer, Document } from '../generated/openapi.js';
import { api, apiError, completedCompany, llcRequest, newIdempotencyKey, partnerClient, simulation, target } from './support/fixtures.ts';
import { recordSkip } from './support/observe.ts';

const secondKey = target.apiKey2;
if (!secondKey) recordSkip('isolation between partners', 'CONTRACT_API_KEY_2 (a second partner\'s key) is not set');

describe.runIf(secondKey !== null)('a second partner', () => {
  const other = partnerClient({ apiKey: secondKey ?? undefined });
  let customer: Customer;
  let company: Company;
  let document: Document;

  beforeAll(async () => {
    company = await completedCompany('LLC');
    customer = (await api.getCustomer({ customerId: company.serviceCustomerId })).payload;
    document = (await api.listCompanyDocuments({ companyId: company.serviceCompanyId })).payload.data[0] as Document;
  });

  it("gets 404 E_NOT_FOUND for the first partner's customer, company, documents and simulation", async () => {
    const companyId = company.serviceCompanyId;
    // One at a time: calls started together reject while an earlier one is awaited, before anything handles them.
    const calls = [
      () => other.getCustomer({ customerId: customer.serviceCustomerId }),
      () => other.getCompany({ companyId }),
      () => other.listCompanyDocuments({ companyId }),
      () => other.getCompanyDocument({ companyId, documentId: document.documentId }),
      () => other.simulateCompanyFormation({ companyId }, simulation('SimulateFormationNext')),
    ];
    for (const call of calls) {
      const error = await apiError(call());
      expect([error.status, error.code]).toEqual([404, 'E_NOT_FOUND']);
    }
  });

  it("finds nothing of the first partner's in its lists", async () => {
    expect((await other.listCustomers({ email: customer.email })).payload.data).toEqual([]);
    expect((await other.listCompanies({ serviceCustomerId: customer.serviceCustomerId })).payload.data).toEqual([]);
    const firstPage = (await other.listCustomers({ limit: 100 })).payload.data.map((item) => item.serviceCustomerId);
    expect(firstPage).not.toContain(customer.serviceCustomerId);
  });

  it("cannot form a company for the first partner's customer: E_CUSTOMER_NOT_FOUND", async () => {
    const error = await apiError(other.createCompany(llcRequest(customer.serviceCustomerId)));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'body', field: '/serviceCustomerId', code: 'E_CUSTOMER_NOT_FOUND' }));
  });

  it("creates its own customer with the first partner's email and Idempotency-Key: keys and emails are per partner", async () => {
    const key = newIdempotencyKey();
    const body = { ...(await api.getCustomer({ customerId: customer.serviceCustomerId })).payload };
    const request = { email: body.email, firstName: body.firstName, lastName: body.lastName, countryOfResidence: body.countryOfResidence };
    const mine = await api.createCustomer(request, { idempotencyKey: key });
    const theirs = await other.createCustomer(request, { idempotencyKey: key });
    expect(mine.payload.created).toBe(false);
    expect(theirs.meta.idempotentReplayed).toBe(false);
    expect(theirs.payload.created).toBe(true);
    expect(theirs.payload.serviceCustomerId).not.toBe(customer.serviceCustomerId);
  });
});
