/** The shapes a company takes in answers. */
import type { Company, CompanySummary } from '../../generated/openapi.js';
import type { Tx } from '../store/store.ts';
import { companiesOfCustomer } from './company-records.ts';

export function companySummary(company: Company): CompanySummary {
  return {
    serviceCompanyId: company.serviceCompanyId,
    name: company.name,
    entityType: company.entityType,
    state: company.state,
    status: company.status,
  };
}

/** A customer's companies as the customer shows them: newest first, at most `limit`. */
export function companySummariesOf(tx: Tx, partnerId: string, customerId: string, limit: number): CompanySummary[] {
  return (companiesOfCustomer(tx, partnerId, customerId, limit)).map(companySummary);
}
