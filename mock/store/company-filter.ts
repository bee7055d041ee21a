/** Whether a company passes listCompanies' filters; shared by the backends that filter in code. */
import type { Company } from '../../generated/openapi.js';
import type { CompanyFilter } from './store.ts';

export function matchesCompanyFilter(company: Company, filter: CompanyFilter): boolean {
  return (
    (filter.serviceCustomerId === undefined || company.serviceCustomerId === filter.serviceCustomerId) &&
    (filter.status === undefined || company.status === filter.status) &&
    (filter.entityType === undefined || company.entityType === filter.entityType)
  );
}
