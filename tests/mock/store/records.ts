/**
 * The rules of every feature over one store, each method one transaction, in the shape the conformance suite
 * calls them: customers, companies, documents, idempotency, the formation timeline, the webhook outbox, webhook
 * endpoints, the request journal, secrets and reset. The suite runs them on every backend, so that what it checks
 * is the rules (written once) on each backend's primitives.
 */
import { contractFacts } from '../../../generated/contract-facts.ts';
import type { Company } from '../../../generated/openapi.js';
import { resetStore } from '../../../mock/app/reset.ts';
import { secret } from '../../../mock/app/secrets.ts';
import { companiesOfCustomer, getCompany, insertCompany, listCompanies, type CompanyFilter } from '../../../mock/companies/company-records.ts';
import { createCustomer, getCustomer, listCustomers, type CustomerRecord } from '../../../mock/customers/customer-records.ts';
import { getDocument, listDocuments } from '../../../mock/documents/document-records.ts';
import { claimCompany, claimDue, commitStep, insertStep, nextStepDueAt, type NextStep, type StepClaim } from '../../../mock/formation/timeline-records.ts';
import { idempotencyRecords, type IdempotencyLock, type StoredResponse } from '../../../mock/idempotency/idempotency-records.ts';
import { appendRequests } from '../../../mock/journal/journal-budget.ts';
import { encodeRequest, journalPage, type JournalQuery, type RequestRecord } from '../../../mock/journal/journal-records.ts';
import type { CompanyChange } from '../../../mock/formation/lifecycle.ts';
import type { PageRequest } from '../../../mock/pagination/page.ts';
import type { Store } from '../../../mock/store/store.ts';
import {
  countRelayRefusal,
  createEndpoint,
  deleteEndpoint,
  forgetRelayRefusals,
  getEndpoint,
  listEndpoints,
  relayRefusalsOf,
  updateEndpoint,
  type RelayRefusal,
  type WebhookEndpointRecord,
} from '../../../mock/webhooks/endpoints/endpoint-records.ts';
import { webhookOutbox } from '../../../mock/webhooks/outbox/outbox.ts';
import { defaultOutboxOptions, type OutboxOptions } from '../../../mock/webhooks/outbox/outbox-types.ts';

export interface RecordOptions {
  idempotencyTtlMs: number;
  idempotencyMaxRecordsPerPartner: number;
  journalMaxBytes: number;
  attemptsKeptPerPartner: number;
  deliveredCapacity: number;
  eventsKeptPerPartner: number;
  maxQueuedPerPartner: number;
  onDropped?: OutboxOptions['onDropped'];
}

export const defaultRecordOptions: RecordOptions = {
  idempotencyTtlMs: contractFacts.limits.idempotencyKeyRetentionSeconds * 1000,
  idempotencyMaxRecordsPerPartner: 100_000,
  journalMaxBytes: 16 * 1024 * 1024,
  attemptsKeptPerPartner: defaultOutboxOptions.attemptsKeptPerPartner,
  deliveredCapacity: defaultOutboxOptions.deliveredCapacity,
  eventsKeptPerPartner: defaultOutboxOptions.eventsKeptPerPartner,
  maxQueuedPerPartner: defaultOutboxOptions.maxQueuedPerPartner,
};

export type Records = ReturnType<typeof recordsOn>;

export function recordsOn(store: Store, options: RecordOptions = defaultRecordOptions) {
  const idempotency = idempotencyRecords({ ttlMs: options.idempotencyTtlMs, maxPerPartner: options.idempotencyMaxRecordsPerPartner });
  const outbox = webhookOutbox(store, { ...defaultOutboxOptions, ...options });
  return {
    store,
    customers: {
      create: (partnerId: string, customer: CustomerRecord) => store.write((tx) => createCustomer(tx, partnerId, customer)),
      get: (partnerId: string, customerId: string) => store.read((tx) => getCustomer(tx, partnerId, customerId)),
      list: (partnerId: string, filter: { email?: string }, page: PageRequest) => store.read((tx) => listCustomers(tx, partnerId, filter, page)),
    },
    companies: {
      get: (partnerId: string, companyId: string) => store.read((tx) => getCompany(tx, partnerId, companyId)),
      list: (partnerId: string, filter: CompanyFilter, page: PageRequest) => store.read((tx) => listCompanies(tx, partnerId, filter, page)),
      ofCustomer: (partnerId: string, customerId: string, limit: number) => store.read((tx) => companiesOfCustomer(tx, partnerId, customerId, limit)),
    },
    documents: {
      list: (partnerId: string, companyId: string, page: PageRequest) => store.read((tx) => listDocuments(tx, partnerId, companyId, page)),
      get: (partnerId: string, companyId: string, documentId: string) => store.read((tx) => getDocument(tx, partnerId, companyId, documentId)),
      getAnyPartner: (companyId: string, documentId: string) => store.read((tx) => getDocument(tx, undefined, companyId, documentId)),
    },
    idempotency: {
      begin: (lock: IdempotencyLock, fingerprint: string, now: number, lockMs: number) => store.hold((tx) => idempotency.begin(tx, lock, fingerprint, now, lockMs)),
      renew: (lock: IdempotencyLock, now: number, lockMs: number) => store.hold((tx) => idempotency.renew(tx, lock, now, lockMs)),
      complete: (lock: IdempotencyLock, response: StoredResponse, now: number) => store.write((tx) => idempotency.complete(tx, lock, response, now)),
      abandon: (lock: IdempotencyLock) => store.hold((tx) => idempotency.abandon(tx, lock)),
      count: (partnerId: string, now: number) => store.read((tx) => idempotency.count(tx, partnerId, now)),
    },
    timeline: {
      insert: (partnerId: string, company: Company, dueAt: number) =>
        store.write(function (tx) {
          insertCompany(tx, partnerId, company);
          insertStep(tx, partnerId, company.serviceCompanyId, dueAt);
        }),
      claimDue: (now: number, leaseMs: number, limit: number) => store.hold((tx) => claimDue(tx, now, leaseMs, limit)),
      claim: (partnerId: string, companyId: string, now: number, leaseMs: number) => store.hold((tx) => claimCompany(tx, partnerId, companyId, now, leaseMs)),
      commit: (claim: StepClaim, change: CompanyChange | undefined, next: NextStep, now: number) => store.write((tx) => commitStep(tx, claim, change, next, now, outbox.storeEvents)),
      nextDueAt: () => store.read((tx) => nextStepDueAt(tx)),
    },
    outbox,
    webhookEndpoints: {
      create: (endpoint: WebhookEndpointRecord, maxPerPartner: number) => store.write((tx) => createEndpoint(tx, endpoint, maxPerPartner)),
      list: (partnerId: string) => store.read((tx) => listEndpoints(tx, partnerId)),
      get: (partnerId: string, endpointId: string) => store.read((tx) => getEndpoint(tx, partnerId, endpointId)),
      find: (endpointId: string) => store.read((tx) => getEndpoint(tx, undefined, endpointId)),
      countRelayRefusal: (endpointId: string, refusal: RelayRefusal) => store.write((tx) => countRelayRefusal(tx, endpointId, refusal)),
      relayRefusals: (endpointId: string) => store.read((tx) => relayRefusalsOf(tx, endpointId)),
      forgetRelayRefusals: (endpointId: string) => store.write((tx) => forgetRelayRefusals(tx, endpointId)),
      update: (endpoint: WebhookEndpointRecord) => store.write((tx) => updateEndpoint(tx, endpoint)),
      async delete(partnerId: string, endpointId: string) {
        const deleted = await store.write((tx) => deleteEndpoint(tx, partnerId, endpointId));
        if (deleted) await outbox.forgetEndpoint(endpointId);
        return deleted;
      },
    },
    journal: {
      append: (records: readonly RequestRecord[]) => store.write((tx) => appendRequests(tx, records.map(encodeRequest), options.journalMaxBytes)),
      page: (query: JournalQuery) => store.read((tx) => journalPage(tx, query)),
    },
    secret: (name: string, create: () => string) => secret(store, name, create),
    reset: (partnerId?: string) => resetStore({ store, outbox, idempotency }, partnerId),
    close: () => store.close(),
  };
}
