/** createCustomer, getCustomer, listCustomers. */
import type { CompanySummary, Customer, CustomerCreateRequest, FieldError } from '../../generated/openapi.js';
import { notFound, validationFailed } from '../http/api-error.ts';
import { newId } from '../ids.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { listPayload, readListQuery } from '../pagination/page.ts';
import { change, partnerOf, type Handlers } from '../pipeline/handler.ts';
import { isCountryCode } from '../reference/index.ts';
import type { Store, Tx } from '../store/store.ts';
import { createCustomer, getCustomer, listCustomers, type CustomerRecord } from './customer-records.ts';

/**
 * What createCustomer refuses in a body the contract's schema accepts: a country code that is none. Also the seed's
 * check of its entries before it writes anything.
 */
export function customerRuleProblems(body: Pick<CustomerCreateRequest, 'countryOfResidence'>): FieldError[] {
  if (isCountryCode(body.countryOfResidence)) return [];
  return [{ in: 'body', field: '/countryOfResidence', code: 'E_COUNTRY_UNKNOWN', message: `${body.countryOfResidence} is not an ISO 3166-1 alpha-3 country code.` }];
}

/** A customer's companies, newest first, at most `limit`, as a customer shows them (the companies feature's). */
export type CompaniesOf = (tx: Tx, partnerId: string, customerId: string, limit: number) => CompanySummary[];

export function customerHandlers(services: { store: Store; cursors: CursorCodec; now: () => Date; companiesOf: CompaniesOf; maxCompaniesShown: number }): Pick<Handlers, 'createCustomer' | 'getCustomer' | 'listCustomers'> {
  const { store, cursors, now } = services;
  function view(tx: Tx, partnerId: string, record: CustomerRecord, created: boolean): Customer {
    // A customer made now has no company yet: nothing to read.
    const companies = created ? [] : services.companiesOf(tx, partnerId, record.serviceCustomerId, services.maxCompaniesShown);
    return { ...record, created, companies };
  }

  return {
    createCustomer(context) {
      const partner = partnerOf(context);
      const body = context.body;
      const problems = customerRuleProblems(body);
      if (problems.length > 0) throw validationFailed(problems);
      const record: CustomerRecord = {
        serviceCustomerId: newId('cus'),
        email: body.email,
        firstName: body.firstName,
        lastName: body.lastName,
        countryOfResidence: body.countryOfResidence,
        phoneNumber: body.phoneNumber ?? null,
        createdAt: now().toISOString(),
      };
      return change(function (tx) {
        const { customer, created } = createCustomer(tx, partner.id, record);
        return { status: 200 as const, payload: view(tx, partner.id, customer, created) };
      });
    },

    async getCustomer(context) {
      const partner = partnerOf(context);
      const { customerId } = context.path;
      return store.read(function (tx) {
        const customer = getCustomer(tx, partner.id, customerId);
        // Read before the customer is known to exist (none for an unknown one): a backend over the network then
        // fetches both in one round trip.
        const companies = services.companiesOf(tx, partner.id, customerId, services.maxCompaniesShown);
        if (!customer) throw notFound(`customer ${customerId}`);
        return { status: 200 as const, payload: { ...customer, created: false, companies } };
      });
    },

    async listCustomers(context) {
      const partner = partnerOf(context);
      const { email } = context.query;
      const filters = { list: 'customers', partner: partner.id, email };
      const request = readListQuery(context.query, cursors, filters);
      return store.read(function (tx) {
        const page = listCustomers(tx, partner.id, { ...(email === undefined ? {} : { email }) }, request);
        const items: Customer[] = [];
        for (const customer of page.items) items.push(view(tx, partner.id, customer, false));
        return { status: 200 as const, payload: listPayload({ ...page, items }, cursors, filters) };
      });
    },
  };
}
