/** createCustomer, getCustomer, listCustomers. */
import type { Customer } from '../../../generated/openapi.js';
import { notFound, validationFailed } from '../../http/api-error.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import { newId } from '../../ids.ts';
import { isCountryCode } from '../../reference/index.ts';
import type { CustomerRecord, Store } from '../../store/store.ts';
import { companySummary } from '../companies/company-views.ts';
import { partnerOf, type Handlers } from '../handler.ts';
import { listPayload, readListQuery } from '../paging.ts';

export function customerHandlers({ store, cursors, now, maxCompaniesShown }: { store: Store; cursors: CursorCodec; now: () => Date; maxCompaniesShown: number }): Pick<Handlers, 'createCustomer' | 'getCustomer' | 'listCustomers'> {
  const view = async (partnerId: string, record: CustomerRecord, created: boolean): Promise<Customer> => ({
    ...record,
    created,
    companies: (await store.companies.ofCustomer(partnerId, record.serviceCustomerId, maxCompaniesShown)).map(companySummary),
  });

  return {
    async createCustomer(context) {
      const partner = partnerOf(context);
      const body = context.body;
      if (!isCountryCode(body.countryOfResidence)) {
        throw validationFailed([{ in: 'body', field: '/countryOfResidence', code: 'E_COUNTRY_UNKNOWN', message: `${body.countryOfResidence} is not an ISO 3166-1 alpha-3 country code.` }]);
      }
      const { customer, created } = await store.customers.create(partner.id, {
        serviceCustomerId: newId('cus'),
        email: body.email,
        firstName: body.firstName,
        lastName: body.lastName,
        countryOfResidence: body.countryOfResidence,
        phoneNumber: body.phoneNumber ?? null,
        createdAt: now().toISOString(),
      });
      return { status: 200, payload: await view(partner.id, customer, created) };
    },

    async getCustomer(context) {
      const partner = partnerOf(context);
      const { customerId } = context.path;
      const customer = await store.customers.get(partner.id, customerId);
      if (!customer) throw notFound(`customer ${customerId}`);
      return { status: 200, payload: await view(partner.id, customer, false) };
    },

    async listCustomers(context) {
      const partner = partnerOf(context);
      const { email } = context.query;
      const filters = { list: 'customers', partner: partner.id, email };
      const page = await store.customers.list(partner.id, { email }, readListQuery(context.query, cursors, filters));
      const items = await Promise.all(page.items.map((customer) => view(partner.id, customer, false)));
      return { status: 200, payload: listPayload({ ...page, items }, cursors, filters) };
    },
  };
}
