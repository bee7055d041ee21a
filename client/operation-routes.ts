/**
 * Where each operation lives. The table is written out because a type cannot yield the name of an
 * operationId, but the compiler holds it to the contract both ways: `satisfies` rejects a wrong method or path
 * for an operation, and requires an entry for every operationId, so a new operation in the contract fails the
 * build here until it has one.
 */
import type { OperationId, RouteOf } from './contract-types.ts';
import type { operations } from '../generated/openapi.js';

export const operationRoutes = {
  listCustomers: ['get', '/v1/partner/customers'],
  createCustomer: ['post', '/v1/partner/customers'],
  getCustomer: ['get', '/v1/partner/customers/{customerId}'],
  listCompanies: ['get', '/v1/partner/companies'],
  createCompany: ['post', '/v1/partner/companies'],
  getCompany: ['get', '/v1/partner/companies/{companyId}'],
  listCompanyDocuments: ['get', '/v1/partner/companies/{companyId}/documents'],
  getCompanyDocument: ['get', '/v1/partner/companies/{companyId}/documents/{documentId}'],
  downloadCompanyDocument: ['get', '/v1/partner/companies/{companyId}/documents/{documentId}/content'],
  listCountries: ['get', '/v1/partner/reference/countries'],
  listStates: ['get', '/v1/partner/reference/states'],
  listNaicsCodes: ['get', '/v1/partner/reference/naics-codes'],
  listFilingFees: ['get', '/v1/partner/reference/filing-fees'],
  simulateCompanyFormation: ['post', '/v1/partner/sandbox/companies/{companyId}/simulate-formation'],
} as const satisfies { [K in OperationId]: RouteOf<operations[K]> };
