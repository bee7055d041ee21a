/**
 * The formation lifecycle: PENDING → SUBMITTED → COMPLETED (filing date; then the EIN; then each document, one
 * at a time) or FAILED with a reason. It advances by itself on the configured timeline ('auto'), and on demand
 * through simulateCompanyFormation. Every change is stored, then announced by its webhook event, in order per
 * company: the steps of one company run one after another, never concurrently.
 */
import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import type { Company, DocumentType, FormationFailureReason } from '../../generated/openapi.js';
import { ApiError, notFound } from '../http/api-error.ts';
import type { Store } from '../store/store.ts';
import { buildEvent, type EventSink } from './webhook-events.ts';
import type { DocumentFactory } from './document-factory.ts';

export type SimulationTarget = 'NEXT' | 'COMPLETED' | 'FAILED';

export interface FormationEngine {
  start(partnerId: string, company: Company): void;
  simulate(partnerId: string, companyId: string, target: SimulationTarget, reason?: FormationFailureReason): Promise<Company>;
  close(): void;
}

export interface FormationTimeline {
  mode: 'auto' | 'manual';
  /** Delay before each automatic step. */
  stepDelayMs: number;
}

const failureMessages: Record<FormationFailureReason, string> = {
  NAME_UNAVAILABLE: 'None of the requested names is available in the state.',
  STATE_REJECTED: 'The state rejected the filing.',
  RESPONSIBLE_PARTY_REJECTED: "The responsible party's identity could not be verified.",
  CANCELLED: 'The formation was cancelled before filing.',
};

type Step = { kind: 'submit' } | { kind: 'complete' } | { kind: 'issue-ein' } | { kind: 'ready-document'; type: DocumentType };

export function createFormationEngine(options: {
  store: Store;
  events: EventSink;
  documents: DocumentFactory;
  timeline: FormationTimeline;
  now: () => Date;
  logger: Logger;
}): FormationEngine {
  const { store, events, documents, timeline, now, logger } = options;
  const chains = new Map<string, Promise<unknown>>();
  const timers = new Map<string, NodeJS.Timeout>();
  let closed = false;

  /** Runs `work` after every earlier step of the same company. */
  const serially = <T>(companyId: string, work: () => Promise<T>): Promise<T> => {
    const previous = chains.get(companyId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => undefined);
    chains.set(companyId, settled);
    void settled.then(() => {
      if (chains.get(companyId) === settled) chains.delete(companyId);
    });
    return result;
  };

  const nextStep = async (partnerId: string, company: Company): Promise<Step | undefined> => {
    if (company.status === 'PENDING') return { kind: 'submit' };
    if (company.status === 'SUBMITTED') return { kind: 'complete' };
    if (company.status !== 'COMPLETED') return undefined;
    if (company.ein === null) return { kind: 'issue-ein' };
    const ready = (await store.listDocuments(partnerId, company.serviceCompanyId, { limit: 100 })).items.map((d) => d.type);
    const missing = documents.typesFor(company.entityType).find((type) => !ready.includes(type));
    return missing ? { kind: 'ready-document', type: missing } : undefined;
  };

  const apply = async (partnerId: string, company: Company, step: Step): Promise<Company> => {
    const at = now();
    const ids = { serviceCompanyId: company.serviceCompanyId, serviceCustomerId: company.serviceCustomerId };
    switch (step.kind) {
      case 'submit': {
        const next = await save(partnerId, { ...company, status: 'SUBMITTED' }, at);
        events.enqueue(buildEvent('company.formation.submitted', { ...ids, status: 'SUBMITTED', submittedAt: at.toISOString() }, at), company.serviceCompanyId);
        return next;
      }
      case 'complete': {
        const filingDate = at.toISOString().slice(0, 10);
        const next = await save(partnerId, { ...company, status: 'COMPLETED', filingDate }, at);
        events.enqueue(buildEvent('company.formation.completed', { ...ids, status: 'COMPLETED', name: company.name, filingDate }, at), company.serviceCompanyId);
        return next;
      }
      case 'issue-ein': {
        const ein = `${randomInt(10, 100)}-${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
        const next = await save(partnerId, { ...company, ein }, at);
        events.enqueue(buildEvent('company.ein.issued', { ...ids, ein }, at), company.serviceCompanyId);
        return next;
      }
      case 'ready-document': {
        const stored = await documents.create(company, step.type, at);
        await store.addDocument(partnerId, stored);
        events.enqueue(buildEvent('document.ready', { ...ids, documentId: stored.document.documentId, documentType: step.type }, at), company.serviceCompanyId);
        return company;
      }
    }
  };

  const fail = async (partnerId: string, company: Company, reason: FormationFailureReason): Promise<Company> => {
    const at = now();
    const failure = { reason, message: failureMessages[reason] };
    const next = await save(partnerId, { ...company, status: 'FAILED', failure }, at);
    events.enqueue(
      buildEvent('company.formation.failed', { serviceCompanyId: company.serviceCompanyId, serviceCustomerId: company.serviceCustomerId, status: 'FAILED', failure }, at),
      company.serviceCompanyId,
    );
    return next;
  };

  const save = async (partnerId: string, company: Company, at: Date): Promise<Company> => {
    const next = { ...company, updatedAt: at.toISOString() } as Company;
    await store.replaceCompany(partnerId, next);
    return next;
  };

  const schedule = (partnerId: string, companyId: string) => {
    if (timeline.mode !== 'auto' || closed) return;
    clearTimeout(timers.get(companyId));
    const timer = setTimeout(() => {
      timers.delete(companyId);
      void serially(companyId, async () => {
        const company = await store.getCompany(partnerId, companyId);
        const step = company && (await nextStep(partnerId, company));
        if (!company || !step) return;
        await apply(partnerId, company, step);
        schedule(partnerId, companyId);
      }).catch((error: unknown) => logger.error({ err: error, companyId }, 'automatic formation step failed'));
    }, timeline.stepDelayMs);
    timer.unref();
    timers.set(companyId, timer);
  };

  return {
    start(partnerId, company) {
      schedule(partnerId, company.serviceCompanyId);
    },

    simulate(partnerId, companyId, target, reason) {
      return serially(companyId, async () => {
        let company = await store.getCompany(partnerId, companyId);
        // Refused before the timeline is touched: a refused simulation (another partner's id, a final
        // formation still getting its EIN and documents) must leave the formation going.
        if (!company) throw notFound(`company ${companyId}`);
        if (company.status === 'COMPLETED' || company.status === 'FAILED') {
          throw new ApiError(409, 'E_FORMATION_ALREADY_FINAL', `The formation is already ${company.status}; it cannot move.`);
        }
        clearTimeout(timers.get(companyId));
        timers.delete(companyId);
        if (target === 'FAILED') return fail(partnerId, company, reason ?? 'STATE_REJECTED');
        // NEXT takes one status step; reaching COMPLETED (by NEXT or COMPLETED) also issues the EIN and documents.
        const stopAfterStatus = target === 'NEXT' && company.status === 'PENDING';
        for (let step = await nextStep(partnerId, company); step; step = await nextStep(partnerId, company)) {
          company = await apply(partnerId, company, step);
          if (stopAfterStatus) break;
        }
        schedule(partnerId, companyId);
        return company;
      });
    },

    close() {
      closed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
