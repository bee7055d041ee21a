/** The shapes a company takes in answers. */
import type { Company, CompanySummary } from '../../../generated/openapi.js';

export function companySummary(company: Company): CompanySummary {
  return {
    serviceCompanyId: company.serviceCompanyId,
    name: company.name,
    entityType: company.entityType,
    state: company.state,
    status: company.status,
  };
}
