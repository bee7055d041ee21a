/**
 * The formation lifecycle as data: which step comes next for a company, and what taking it changes (the company,
 * a document that becomes ready, the webhook events that announce it). Pure but for the document's rendering; the
 * engine decides when steps run and stores each change with its events in one commit.
 */
import { randomInt } from 'node:crypto';
import type { Company, DocumentType, FormationFailureReason } from '../../generated/openapi.js';
import type { DocumentFactory } from '../documents/document-factory.ts';
import type { OutboxEvent } from '../webhooks/outbox/outbox-types.ts';
import { outboxEvent, type EventDestinations } from '../webhooks/outbox/outbox-event.ts';
import type { CompanyChange as StepChange } from './timeline-records.ts';

/** What a step changes: the company, a document that became ready, the events that announce it. */
export type CompanyChange = StepChange<OutboxEvent>;

export type Step = { kind: 'submit' } | { kind: 'complete' } | { kind: 'issue-ein' } | { kind: 'ready-document'; type: DocumentType };

const failureMessages: Record<FormationFailureReason, string> = {
  NAME_UNAVAILABLE: 'None of the requested names is available in the state.',
  STATE_REJECTED: 'The state rejected the filing.',
  RESPONSIBLE_PARTY_REJECTED: "The responsible party's identity could not be verified.",
  CANCELLED: 'The formation was cancelled before filing.',
};

/** PENDING → SUBMITTED → COMPLETED, then the EIN, then each document in turn; nothing once all is done or FAILED. */
export function nextStep(company: Company, readyTypes: readonly DocumentType[], documents: DocumentFactory): Step | undefined {
  if (company.status === 'PENDING') return { kind: 'submit' };
  if (company.status === 'SUBMITTED') return { kind: 'complete' };
  if (company.status !== 'COMPLETED') return undefined;
  if (company.ein === null) return { kind: 'issue-ein' };
  const missing = documents.typesFor(company.entityType).find((type) => !readyTypes.includes(type));
  return missing ? { kind: 'ready-document', type: missing } : undefined;
}

export interface LifecycleContext {
  partnerId: string;
  documents: DocumentFactory;
  destinations: EventDestinations;
}

/** What taking `step` at `at` changes. */
export async function changeFor(context: LifecycleContext, company: Company, step: Step, at: Date): Promise<CompanyChange> {
  const ids = { serviceCompanyId: company.serviceCompanyId, serviceCustomerId: company.serviceCustomerId };
  const event = <K extends Parameters<typeof outboxEvent>[3]>(type: K, data: Parameters<typeof outboxEvent<K>>[4]) =>
    outboxEvent(context.destinations, context.partnerId, company.serviceCompanyId, type, data, at);
  const updated = (changes: Partial<Company>) => ({ ...company, ...changes, updatedAt: at.toISOString() }) as Company;
  switch (step.kind) {
    case 'submit':
      return { company: updated({ status: 'SUBMITTED' }), events: [await event('company.formation.submitted', { ...ids, status: 'SUBMITTED', submittedAt: at.toISOString() })] };
    case 'complete': {
      const filingDate = at.toISOString().slice(0, 10);
      return {
        company: updated({ status: 'COMPLETED', filingDate }),
        events: [await event('company.formation.completed', { ...ids, status: 'COMPLETED', name: company.name, filingDate })],
      };
    }
    case 'issue-ein': {
      const ein = `${randomInt(10, 100)}-${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
      return { company: updated({ ein }), events: [await event('company.ein.issued', { ...ids, ein })] };
    }
    case 'ready-document': {
      const document = await context.documents.create(company, step.type, at);
      return { company, document, events: [await event('document.ready', { ...ids, documentId: document.document.documentId, documentType: step.type })] };
    }
  }
}

/** What failing the formation with `reason` changes. */
export async function failureFor(context: LifecycleContext, company: Company, reason: FormationFailureReason, at: Date): Promise<CompanyChange> {
  const failure = { reason, message: failureMessages[reason] };
  return {
    company: { ...company, status: 'FAILED', failure, updatedAt: at.toISOString() } as Company,
    events: [
      await outboxEvent(context.destinations, context.partnerId, company.serviceCompanyId, 'company.formation.failed', {
        serviceCompanyId: company.serviceCompanyId,
        serviceCustomerId: company.serviceCustomerId,
        status: 'FAILED',
        failure,
      }, at),
    ],
  };
}

/** The document types a change leaves ready, given those ready before it. */
export function readyAfter(readyTypes: readonly DocumentType[], change: CompanyChange): DocumentType[] {
  return change.document ? [...readyTypes, change.document.document.type] : [...readyTypes];
}
