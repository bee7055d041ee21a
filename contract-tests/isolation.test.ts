/**
 * Isolation between partners: a second partner's key sees none of the first partner's customers, companies or
 * documents — their ids answer 404 exactly like ids that never existed, lists leave them out, its simulations
 * move nothing, and a formation naming the other partner's customer is refused with E_CUSTOMER_NOT_FOUND.
 * Idempotency keys and emails are per partner too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PartnerApiError } from '../client/index.ts';
import type { Company, Customer, Document } from '../generated/openapi.js';
import {
  api,
  apiError,
  completedCompany,
  customerRequest,
  llcRequest,
  newIdempotencyKey,
  partnerClient,
  simulation,
  target,
  unknownId,
} from './support/fixtures.ts';
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
    // The refused simulation moved nothing, and the owner still finds everything.
    expect((await api.getCompany({ companyId })).payload.status).toBe('COMPLETED');
    expect((await api.getCustomer({ customerId: customer.serviceCustomerId })).payload.serviceCustomerId).toBe(customer.serviceCustomerId);
  });

  it('answers exactly as for ids that never existed: same status, code and message but for the ids', async () => {
    const companyId = company.serviceCompanyId;
    const [neverCustomer, neverCompany, neverDocument] = [unknownId('cus'), unknownId('com'), unknownId('doc')];
    /** The error as a partner sees it, with the ids it names made generic. */
    const shape = async (call: Promise<unknown>, ids: string[]) => {
      const error: PartnerApiError = await apiError(call);
      const message = ids.reduce((text, id) => text.replaceAll(id, '<id>'), error.message);
      return { status: error.status, code: error.code, message, details: error.details };
    };
    const pairs = [
      [
        () => shape(other.getCustomer({ customerId: customer.serviceCustomerId }), [customer.serviceCustomerId]),
        () => shape(other.getCustomer({ customerId: neverCustomer }), [neverCustomer]),
      ],
      [() => shape(other.getCompany({ companyId }), [companyId]), () => shape(other.getCompany({ companyId: neverCompany }), [neverCompany])],
      [
        () => shape(other.listCompanyDocuments({ companyId }), [companyId]),
        () => shape(other.listCompanyDocuments({ companyId: neverCompany }), [neverCompany]),
      ],
      [
        () => shape(other.getCompanyDocument({ companyId, documentId: document.documentId }), [companyId, document.documentId]),
        () => shape(other.getCompanyDocument({ companyId: neverCompany, documentId: neverDocument }), [neverCompany, neverDocument]),
      ],
      [
        () => shape(other.simulateCompanyFormation({ companyId }, simulation('SimulateFormationFailed')), [companyId]),
        () => shape(other.simulateCompanyFormation({ companyId: neverCompany }, simulation('SimulateFormationFailed')), [neverCompany]),
      ],
    ] as const;
    for (const [theirs, never] of pairs) expect(await theirs()).toEqual(await never());
  });

  it("finds nothing of the first partner's in its lists", async () => {
    expect((await other.listCustomers({ email: customer.email })).payload.data).toEqual([]);
    expect((await other.listCompanies({ serviceCustomerId: customer.serviceCustomerId })).payload.data).toEqual([]);
    const firstPage = (await other.listCustomers({ limit: 100 })).payload.data.map((item) => item.serviceCustomerId);
    expect(firstPage).not.toContain(customer.serviceCustomerId);
    const companies = (await other.listCompanies({ limit: 100 })).payload.data.map((item) => item.serviceCompanyId);
    expect(companies).not.toContain(company.serviceCompanyId);
    // The same filter finds it for its owner.
    const own = (await api.listCustomers({ email: customer.email })).payload.data.map((item) => item.serviceCustomerId);
    expect(own).toEqual([customer.serviceCustomerId]);
  });

  it("cannot form a company for the first partner's customer: E_CUSTOMER_NOT_FOUND", async () => {
    const error = await apiError(other.createCompany(llcRequest(customer.serviceCustomerId)));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    // The contract's example is otherwise valid: the customer is the one problem.
    expect(error.details).toEqual([{ in: 'body', field: '/serviceCustomerId', code: 'E_CUSTOMER_NOT_FOUND', message: expect.any(String) }]);
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

  it('takes a key the first partner used with another body as a key of its own: no E_IDEMPOTENCY_KEY_REUSED across partners', async () => {
    const key = newIdempotencyKey();
    await api.createCustomer(customerRequest(), { idempotencyKey: key });
    const theirs = await other.createCustomer(customerRequest(), { idempotencyKey: key });
    expect(theirs.meta.status).toBe(200);
    expect(theirs.meta.idempotentReplayed).toBe(false);
    expect(theirs.payload.created).toBe(true);
  });
});
