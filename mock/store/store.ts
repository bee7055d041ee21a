/**
 * What the mock remembers, per partner. The interface is asynchronous so that a persistent store can replace
 * the in-memory one without touching the handlers; each method is atomic on its own.
 */
import type { Company, Customer, Document, EntityType, FormationStatus } from '../../generated/openapi.js';

export type CustomerRecord = Omit<Customer, 'created' | 'companies'>;

export interface StoredDocument {
  document: Document;
  file: Uint8Array;
}

export interface PageRequest {
  limit: number;
  /** Position of the last item of the previous page (its sequence number); absent for the first page. */
  after?: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** Position of the last item returned, to continue from. */
  last?: number;
}

export interface CompanyFilter {
  serviceCustomerId?: string;
  status?: FormationStatus;
  entityType?: EntityType;
}

export interface Store {
  /** Creates the customer unless one with the same email (case-insensitive) exists, which is returned instead. */
  createCustomer(partnerId: string, customer: CustomerRecord): Promise<{ customer: CustomerRecord; created: boolean }>;
  getCustomer(partnerId: string, customerId: string): Promise<CustomerRecord | undefined>;
  /** Newest first. */
  listCustomers(partnerId: string, filter: { email?: string }, page: PageRequest): Promise<Page<CustomerRecord>>;

  insertCompany(partnerId: string, company: Company): Promise<void>;
  getCompany(partnerId: string, companyId: string): Promise<Company | undefined>;
  replaceCompany(partnerId: string, company: Company): Promise<void>;
  /** Newest first. */
  listCompanies(partnerId: string, filter: CompanyFilter, page: PageRequest): Promise<Page<Company>>;
  /** Newest first, at most `limit`. */
  companiesOfCustomer(partnerId: string, customerId: string, limit: number): Promise<Company[]>;

  addDocument(partnerId: string, stored: StoredDocument): Promise<void>;
  /** In the order they became ready. */
  listDocuments(partnerId: string, companyId: string, page: PageRequest): Promise<Page<Document>>;
  getDocument(partnerId: string, companyId: string, documentId: string): Promise<StoredDocument | undefined>;
  /** For signed download URLs, which carry no key: the id is the capability. */
  getDocumentAnyPartner(companyId: string, documentId: string): Promise<StoredDocument | undefined>;
}
