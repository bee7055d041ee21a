/** The in-memory store: one partition per partner, records in insertion order with a sequence for paging. */
import type { Company, Document } from '../../generated/openapi.js';
import type { CompanyFilter, CustomerRecord, Page, PageRequest, Store, StoredDocument } from './store.ts';

interface Sequenced<T> {
  seq: number;
  value: T;
}

interface Partition {
  /** Positions are per partner, so a cursor tells a partner nothing of another's activity. */
  sequence: number;
  customers: Sequenced<CustomerRecord>[];
  customersById: Map<string, Sequenced<CustomerRecord>>;
  customerIdByEmail: Map<string, string>;
  companies: Sequenced<Company>[];
  companiesById: Map<string, Sequenced<Company>>;
  documentsByCompany: Map<string, Sequenced<StoredDocument>[]>;
}

export function createMemoryStore(): Store {
  const partitions = new Map<string, Partition>();
  const documentsByKey = new Map<string, StoredDocument>();

  const partition = (partnerId: string): Partition => {
    let found = partitions.get(partnerId);
    if (!found) {
      found = { sequence: 0, customers: [], customersById: new Map(), customerIdByEmail: new Map(), companies: [], companiesById: new Map(), documentsByCompany: new Map() };
      partitions.set(partnerId, found);
    }
    return found;
  };

  return {
    async createCustomer(partnerId, customer) {
      const p = partition(partnerId);
      const email = customer.email.toLowerCase();
      const existingId = p.customerIdByEmail.get(email);
      const existing = existingId ? p.customersById.get(existingId) : undefined;
      if (existing) return { customer: existing.value, created: false };
      const entry = { seq: ++p.sequence, value: customer };
      p.customers.push(entry);
      p.customersById.set(customer.serviceCustomerId, entry);
      p.customerIdByEmail.set(email, customer.serviceCustomerId);
      return { customer, created: true };
    },
    async getCustomer(partnerId, customerId) {
      return partitions.get(partnerId)?.customersById.get(customerId)?.value;
    },
    async listCustomers(partnerId, { email }, page) {
      const all = partitions.get(partnerId)?.customers ?? [];
      const wanted = email?.toLowerCase();
      return newestFirst(all, page, (customer) => wanted === undefined || customer.email.toLowerCase() === wanted);
    },

    async insertCompany(partnerId, company) {
      const p = partition(partnerId);
      const entry = { seq: ++p.sequence, value: company };
      p.companies.push(entry);
      p.companiesById.set(company.serviceCompanyId, entry);
    },
    async getCompany(partnerId, companyId) {
      return partitions.get(partnerId)?.companiesById.get(companyId)?.value;
    },
    async replaceCompany(partnerId, company) {
      const entry = partitions.get(partnerId)?.companiesById.get(company.serviceCompanyId);
      if (!entry) throw new Error(`no company ${company.serviceCompanyId} to replace`);
      entry.value = company;
    },
    async listCompanies(partnerId, filter, page) {
      return newestFirst(partitions.get(partnerId)?.companies ?? [], page, (company) => matches(company, filter));
    },
    async companiesOfCustomer(partnerId, customerId, limit) {
      const companies = partitions.get(partnerId)?.companies ?? [];
      const found: Company[] = [];
      for (let i = companies.length - 1; i >= 0 && found.length < limit; i -= 1) {
        const company = (companies[i] as Sequenced<Company>).value;
        if (company.serviceCustomerId === customerId) found.push(company);
      }
      return found;
    },

    async addDocument(partnerId, stored) {
      const p = partition(partnerId);
      const list = p.documentsByCompany.get(stored.document.serviceCompanyId) ?? [];
      list.push({ seq: ++p.sequence, value: stored });
      p.documentsByCompany.set(stored.document.serviceCompanyId, list);
      documentsByKey.set(documentKey(stored.document.serviceCompanyId, stored.document.documentId), stored);
    },
    async listDocuments(partnerId, companyId, page) {
      const list = partitions.get(partnerId)?.documentsByCompany.get(companyId) ?? [];
      const start = page.after === undefined ? 0 : list.findIndex((entry) => entry.seq > (page.after as number));
      const slice = start < 0 ? [] : list.slice(start, start + page.limit);
      return toPage(slice.map((entry) => ({ seq: entry.seq, value: entry.value.document })), start >= 0 && start + page.limit < list.length);
    },
    async getDocument(partnerId, companyId, documentId) {
      return partitions.get(partnerId)?.documentsByCompany.get(companyId)?.find((entry) => entry.value.document.documentId === documentId)?.value;
    },
    async getDocumentAnyPartner(companyId, documentId) {
      return documentsByKey.get(documentKey(companyId, documentId));
    },
  };
}

function documentKey(companyId: string, documentId: string): string {
  return `${companyId}/${documentId}`;
}

function matches(company: Company, filter: CompanyFilter): boolean {
  return (
    (filter.serviceCustomerId === undefined || company.serviceCustomerId === filter.serviceCustomerId) &&
    (filter.status === undefined || company.status === filter.status) &&
    (filter.entityType === undefined || company.entityType === filter.entityType)
  );
}

/** Walks from the newest entry down, skipping those at or above the cursor's position. */
function newestFirst<T>(entries: Sequenced<T>[], page: PageRequest, keep: (value: T) => boolean): Page<T> {
  const picked: Sequenced<T>[] = [];
  let hasMore = false;
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as Sequenced<T>;
    if (page.after !== undefined && entry.seq >= page.after) continue;
    if (!keep(entry.value)) continue;
    if (picked.length === page.limit) {
      hasMore = true;
      break;
    }
    picked.push(entry);
  }
  return toPage(picked, hasMore);
}

function toPage<T>(entries: Sequenced<T>[], hasMore: boolean): Page<T> {
  return { items: entries.map((entry) => entry.value), hasMore, last: entries.at(-1)?.seq };
}

export type { Document };
