/**
 * Resetting the store: everything (but the secrets and the counters), or one partner's records in every feature.
 * A partner's reset goes a batch of records per transaction, so that a partner with much data never makes one
 * transaction huge; what it removes is gone for every read once it returns.
 */
import { allTopics, announce } from '../changes/change-topics.ts';
import { forgetCompanies } from '../companies/company-records.ts';
import { forgetCustomers } from '../customers/customer-records.ts';
import { forgetDocuments } from '../documents/document-records.ts';
import { forgetSteps } from '../formation/timeline-records.ts';
import type { idempotencyRecords } from '../idempotency/idempotency-records.ts';
import { forgetRequests } from '../journal/journal-budget.ts';
import type { Store, Tx } from '../store/store.ts';
import { deleteEndpoint, listEndpoints } from '../webhooks/endpoints/endpoint-records.ts';
import type { WebhookOutbox } from '../webhooks/outbox/outbox.ts';
import { secrets } from './secrets.ts';

const batch = 256;

export async function resetStore(services: { store: Store; outbox: WebhookOutbox; idempotency: ReturnType<typeof idempotencyRecords> }, partnerId?: string): Promise<void> {
  const { store, outbox, idempotency } = services;
  if (partnerId === undefined) return store.clear([secrets]);
  const forgets: ((tx: Tx) => boolean)[] = [
    (tx) => forgetSteps(tx, partnerId, batch),
    (tx) => forgetDocuments(tx, partnerId, batch),
    (tx) => forgetCompanies(tx, partnerId, batch),
    (tx) => forgetCustomers(tx, partnerId, batch),
    (tx) => idempotency.forget(tx, partnerId, batch),
    (tx) => forgetRequests(tx, partnerId, batch),
  ];
  for (const forget of forgets) while (!(await store.write(forget)));
  for (const endpoint of await store.read((tx) => listEndpoints(tx, partnerId))) {
    await store.write((tx) => deleteEndpoint(tx, partnerId, endpoint.id));
    await outbox.forgetEndpoint(endpoint.id);
  }
  await outbox.forgetPartner(partnerId);
  // What went went in many transactions, each announcing nothing: one change of every topic says it.
  await store.write((tx) => {
    for (const topic of allTopics) announce(tx, topic, partnerId);
  });
}
