/** createCustomer, getCustomer, listCustomers. */
import type { Customer, CustomerCreateRequest } from '../../../generated/openapi.js';
import { notFound, validationFailed } from '../../http/api-error.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import { newId } from '../../ids.ts';
import { isCountryCode } from '../../reference/index.ts';
import type { CustomerRecord, Store } from '../../store/store.ts';
import { companySummary } from '../companies/company-views.ts';
import { partnerOf, type Handlers } from '../handler.ts';
import { listPayload, readListQuery } from '../paging.ts';

export function customerHandlers({ store, cursors, now, maxCompaniesShown }: { store: Store; cursors: CursorCodec; now: () => Date; maxCompaniesShown: number }): Handlers {
  const view = async (partnerId: string, record: CustomerRecord, created: boolean): Promise<Customer> => ({
    ...record,
    created,
    companies: (await store.companiesOfCustomer(partnerId, record.serviceCustomerId, maxCompaniesShown)).map(companySummary),
  });

  return {
    async createCustomer(context) {
      const partner = partnerOf(context);
      const body = context.body as CustomerCreateRequest;
      if (!isCountryCode(body.countryOfResidence)) {
        throw validationFailed([{ in: 'body', field: '/countryOfResidence', code: 'E_COUNTRY_UNKNOWN', message: `${body.countryOfResidence} is not an ISO 3166-1 alpha-3 country code.` }]);
      }
      const { customer, created } = await store.createCustomer(partner.id, {
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
      const customerId = context.pathParams.customerId as string;
      const customer = await store.getCustomer(partner.id, customerId);
      if (!customer) throw notFound(`customer ${customerId}`);
      return { status: 200, payload: await view(partner.id, customer, false) };
    },

    async listCustomers(context) {
      const partner = partnerOf(context);
      const filters = { list: 'customers', partner: partner.id, email: context.query.email };
      const query = readListQuery(context.query, cursors, filters);
      const page = await store.listCustomers(partner.id, { email: context.query.email as string | undefined }, query);
      const items = await Promise.all(page.items.map((customer) => view(partner.id, customer, false)));
      return { status: 200, payload: listPayload({ ...page, items }, cursors, filters) };
    },
  };
}
