/**
 * Companies as the store keeps them: per partner, listed newest first, by customer, status and entity type. A
 * company is stored when its formation is submitted (with its first formation step, formation/timeline.ts) and
 * changed by each step after.
 */
import type { Company, EntityType, FormationStatus } from '../../generated/openapi.js';
import { pageOfIndex, type Page, type PageRequest } from '../pagination/page.ts';
import { nextPosition } from '../pagination/positions.ts';
import { key, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import { announce } from '../changes/change-topics.ts';

export interface CompanyFilter {
  serviceCustomerId?: string;
  status?: FormationStatus;
  entityType?: EntityType;
}

interface StoredCompany {
  position: number;
  company: Company;
}

const companies = table<StoredCompany>('companies');
/** partner, position → company id. */
const byPosition = table<string>('companies_by_position', { ordered: true });
/** partner, customer id, position → company id: a customer's companies. */
const byCustomer = table<string>('companies_by_customer', { ordered: true });

export function insertCompany(tx: Tx, partnerId: string, company: Company): void {
  const position = nextPosition(tx, partnerId);
  tx.put(companies, key(partnerId, company.serviceCompanyId), { position, company });
  tx.put(byPosition, key(partnerId, position), company.serviceCompanyId);
  tx.put(byCustomer, key(partnerId, company.serviceCustomerId, position), company.serviceCompanyId);
  announce(tx, 'companies', partnerId);
}

/** Replaces a stored company (its status, EIN…); its id, customer and position stay. */
export function updateCompany(tx: Tx, partnerId: string, company: Company): void {
  const stored = tx.get(companies, key(partnerId, company.serviceCompanyId));
  if (!stored) return;
  tx.put(companies, key(partnerId, company.serviceCompanyId), { position: stored.position, company });
  announce(tx, 'companies', partnerId);
}

export function getCompany(tx: Tx, partnerId: string, companyId: string): Company | undefined {
  return tx.get(companies, key(partnerId, companyId))?.company;
}

function matches(company: Company, filter: CompanyFilter): boolean {
  return (filter.status === undefined || company.status === filter.status) && (filter.entityType === undefined || company.entityType === filter.entityType);
}

/** Newest first. */
export function listCompanies(tx: Tx, partnerId: string, filter: CompanyFilter, page: PageRequest): Page<Company> {
  const filtered = filter.status !== undefined || filter.entityType !== undefined;
  const [index, prefix] = filter.serviceCustomerId === undefined ? [byPosition, [partnerId]] : [byCustomer, [partnerId, filter.serviceCustomerId]];
  return pageOfIndex(tx, index, prefix, page, {
    reverse: true,
    load: function (ids) {
      return (tx.getMany(companies, ids.map((id) => key(partnerId, id)), { snapshot: true })).map((stored) => stored?.company);
    },
    ...(filtered ? { keep: (company: Company) => matches(company, filter) } : {}),
  });
}

/**
 * The customer's companies, newest first, at most `limit`. Checked reads: a create answering a known customer
 * shows its companies as they are when it commits (it runs again should one be added meanwhile).
 */
export function companiesOfCustomer(tx: Tx, partnerId: string, customerId: string, limit: number): Company[] {
  if (limit <= 0) return [];
  const entries = tx.scan(byCustomer, within([partnerId, customerId], { reverse: true, limit }));
  const stored = tx.getMany(companies, entries.map((entry) => key(partnerId, entry.value)));
  return stored.flatMap((entry) => (entry ? [entry.company] : []));
}

/** Forgets up to `limit` of the partner's companies; true when none is left. */
export function forgetCompanies(tx: Tx, partnerId: string, limit: number): boolean {
  const entries = tx.scan(byPosition, within([partnerId], { limit }));
  const stored = tx.getMany(companies, entries.map((entry) => key(partnerId, entry.value)));
  entries.forEach((entry, index) => {
    tx.delete(byPosition, entry.key);
    tx.delete(companies, key(partnerId, entry.value));
    const company = stored[index];
    if (company) tx.delete(byCustomer, key(partnerId, company.company.serviceCustomerId, company.position));
  });
  return entries.length < limit;
}
