/**
 * Runs the formation timeline on the store. Each company's next step is stored with its due time; whichever
 * process claims a due step takes it, and stores the change with its webhook events and the next due time in one
 * commit made under its claim, so each step happens exactly once, even with replicas. Steps that fell due while
 * the mock was down are due at start, and run in order: the next step of a company is due one step delay after
 * the previous one was due, so a timeline left behind catches up at once. simulateCompanyFormation claims the
 * company's timeline too, so a simulation and an automatic step never interleave.
 */
import type { Logger } from 'pino';
import type { Company, DocumentType, FormationFailureReason } from '../../generated/openapi.js';
import { getCompany, insertCompany } from '../companies/company-records.ts';
import type { DocumentFactory } from '../documents/document-factory.ts';
import { listDocuments } from '../documents/document-records.ts';
import { ApiError, notFound, serviceUnavailable } from '../http/api-error.ts';
import { reportRunFailures } from '../scheduling/run-failures.ts';
import { createWorkScheduler } from '../scheduling/work-scheduler.ts';
import type { Store, Tx } from '../store/store.ts';
import type { OutboxEvent } from '../webhooks/outbox/outbox-types.ts';
import type { EventDestinations } from '../webhooks/outbox/outbox-event.ts';
import { changeFor, failureFor, nextStep, readyAfter, type CompanyChange, type LifecycleContext } from './lifecycle.ts';
import { claimCompany, claimDue, commitStep, insertStep, never, nextStepDueAt, releaseStep, type NextStep, type StepClaim } from './timeline-records.ts';

export type SimulationTarget = 'NEXT' | 'COMPLETED' | 'FAILED';

export interface FormationEngine {
  /** Inside the transaction that stores a new company: the company and its first step. */
  start(tx: Tx, partnerId: string, company: Company): void;
  simulate(partnerId: string, companyId: string, target: SimulationTarget, reason?: FormationFailureReason): Promise<Company>;
  close(): Promise<void>;
}

export interface FormationTimeline {
  mode: 'auto' | 'manual';
  /** Delay before each automatic step. */
  stepDelayMs: number;
}

/** Long enough for any step (the slowest renders a PDF), short enough that a dead replica's steps resume soon. */
const stepLeaseMs = 10_000;
const claimBatch = 16;
/** How long a simulation waits for another process's step on the same company before answering 503. */
const busyWaitMs = 5_000;

export interface FormationEngineOptions {
  store: Store;
  /** Stores a step's events inside its commit (the webhook outbox's). */
  storeEvents: (tx: Tx, events: readonly OutboxEvent[], now: number) => void;
  destinations: EventDestinations;
  documents: DocumentFactory;
  timeline: FormationTimeline;
  now: () => Date;
  logger: Logger;
  /** Look for work other processes stored this often (a store several processes share); undefined: only when due. */
  pollMs?: number;
}

export function createFormationEngine(options: FormationEngineOptions): FormationEngine {
  const { store, destinations, documents, timeline, logger } = options;
  const auto = timeline.mode === 'auto';
  const serially = companyQueue();
  const context = (partnerId: string): LifecycleContext => ({ partnerId, documents, destinations });
  const scheduleAfter = (dueAt: number): NextStep => ({ dueAt: auto ? dueAt + timeline.stepDelayMs : never });
  // Each body takes its time from outside: a body may run again, and must read the same keys each time.
  const commit = (claim: StepClaim, change: CompanyChange | undefined, next: NextStep) => {
    const now = Date.now();
    return store.write((tx) => commitStep(tx, claim, change, next, now, options.storeEvents));
  };
  const readState = (partnerId: string, companyId: string) => store.read((tx) => companyState(tx, partnerId, companyId));

  /** Takes one due step under its claim; a claim lost meanwhile (another process took the step) changes nothing. */
  const runStep = (claim: StepClaim) =>
    serially(claim.companyId, async () => {
      const { company, ready } = await readState(claim.partnerId, claim.companyId);
      const step = company && nextStep(company, ready, documents);
      if (!company || !step) return void (await commit(claim, undefined, { done: true }));
      const change = await changeFor(context(claim.partnerId), company, step, options.now());
      const more = nextStep(change.company, readyAfter(ready, change), documents) !== undefined;
      if (await commit(claim, change, more ? scheduleAfter(claim.dueAt) : { done: true })) destinations.notify();
      else logger.warn({ companyId: claim.companyId, step: step.kind }, 'formation step dropped: its claim ran out and another process took it');
    });

  const scheduler = createWorkScheduler({
    pollMs: options.pollMs,
    ...reportRunFailures(logger, 'formation timeline'),
    async work() {
      const now = Date.now();
      const claims = await store.hold((tx) => claimDue(tx, now, stepLeaseMs, claimBatch));
      const results = await Promise.allSettled(claims.map(runStep));
      for (const [index, result] of results.entries()) {
        // The claim is kept until its lease runs out, so the step is tried again then, by this process or another.
        if (result.status === 'rejected') logger.error({ err: result.reason, companyId: claims[index]?.companyId }, 'formation step failed; it will be retried');
      }
      if (claims.length === claimBatch) return Date.now();
      const next = await store.read((tx) => nextStepDueAt(tx));
      // Never a time already past when nothing was claimable: that would make the scheduler spin.
      return next === undefined ? undefined : Math.max(next, Date.now() + 10);
    },
  });
  scheduler.wake();

  const simulation = createSimulation({ ...options, context, commit, readState, scheduleAfter });

  return {
    start(tx, partnerId, company) {
      // From the company's own time, not the clock: this runs inside the create's transaction body.
      const dueAt = auto ? Date.parse(company.createdAt) + timeline.stepDelayMs : never;
      if (Number.isNaN(dueAt)) throw new Error(`company ${company.serviceCompanyId} has no valid createdAt`);
      insertCompany(tx, partnerId, company);
      insertStep(tx, partnerId, company.serviceCompanyId, dueAt);
      // Early is harmless (the scheduler finds nothing due and waits again), so before the commit is fine.
      if (auto) scheduler.wake(dueAt);
    },

    simulate(partnerId, companyId, target, reason) {
      return serially(companyId, async () => {
        const result = await simulation.run(partnerId, companyId, target, reason);
        if (auto) scheduler.wake(Date.now() + timeline.stepDelayMs);
        return result;
      });
    },

    async close() {
      await scheduler.close();
      await serially.settled();
    },
  };
}

/** A company as a step sees it: itself and the types of its documents already ready. */
function companyState(tx: Tx, partnerId: string, companyId: string): { company: Company | undefined; ready: DocumentType[] } {
  const company = getCompany(tx, partnerId, companyId);
  const ready = company ? (listDocuments(tx, partnerId, companyId, { limit: 100 })).items.map((document) => document.type) : [];
  return { company, ready };
}

/** Runs work after every earlier piece of work on the same company in this process. */
function companyQueue() {
  const chains = new Map<string, Promise<unknown>>();
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
  return Object.assign(serially, { settled: () => Promise.allSettled([...chains.values()]) });
}

interface SimulationDeps extends FormationEngineOptions {
  context: (partnerId: string) => LifecycleContext;
  commit: (claim: StepClaim, change: CompanyChange | undefined, next: NextStep) => Promise<boolean>;
  readState: (partnerId: string, companyId: string) => Promise<{ company: Company | undefined; ready: DocumentType[] }>;
  scheduleAfter: (dueAt: number) => NextStep;
}

/** simulateCompanyFormation: moves a formation on at once, under a claim on its timeline. */
function createSimulation(deps: SimulationDeps) {
  const { store, documents, destinations } = deps;
  const finalRefusal = (company: Company) => new ApiError(409, 'E_FORMATION_ALREADY_FINAL', `The formation is already ${company.status}; it cannot move.`);
  const isFinal = (company: Company) => company.status === 'COMPLETED' || company.status === 'FAILED';

  /** Claims the company's timeline, waiting out another process's step in progress. */
  const claimFor = async (partnerId: string, companyId: string): Promise<StepClaim | 'none'> => {
    const deadline = Date.now() + busyWaitMs;
    for (;;) {
      const now = Date.now();
      const claim = await store.hold((tx) => claimCompany(tx, partnerId, companyId, now, stepLeaseMs));
      if (claim !== 'busy') return claim;
      if (Date.now() > deadline) {
        throw serviceUnavailable('The formation is being advanced by another request; retry after Retry-After.');
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const commitOrFail = async (claim: StepClaim, change: CompanyChange | undefined, next: NextStep) => {
    if (!(await deps.commit(claim, change, next))) throw new Error(`the simulation of ${claim.companyId} lost its claim on the timeline`);
    if (change) destinations.notify();
  };

  const advance = async (claim: StepClaim, target: SimulationTarget, reason: FormationFailureReason | undefined): Promise<Company> => {
    let { company, ready } = await deps.readState(claim.partnerId, claim.companyId);
    // Refused without touching the timeline: a refused simulation (a final formation still getting its EIN and
    // documents) must leave the formation going as it was.
    if (!company || isFinal(company)) {
      await deps.commit(claim, undefined, { dueAt: claim.dueAt });
      throw company ? finalRefusal(company) : notFound(`company ${claim.companyId}`);
    }
    if (target === 'FAILED') {
      const change = await failureFor(deps.context(claim.partnerId), company, reason ?? 'STATE_REJECTED', deps.now());
      await commitOrFail(claim, change, { done: true });
      return change.company;
    }
    // NEXT takes one status step; reaching COMPLETED (by NEXT or COMPLETED) also issues the EIN and documents.
    const stopAfterStatus = target === 'NEXT' && company.status === 'PENDING';
    for (let step = nextStep(company, ready, documents); step; step = nextStep(company, ready, documents)) {
      const change: CompanyChange = await changeFor(deps.context(claim.partnerId), company, step, deps.now());
      await commitOrFail(claim, change, { keep: true });
      company = change.company;
      ready = readyAfter(ready, change);
      if (stopAfterStatus) break;
    }
    const more = nextStep(company, ready, documents) !== undefined;
    await commitOrFail(claim, undefined, more ? deps.scheduleAfter(Date.now()) : { done: true });
    return company;
  };

  return {
    async run(partnerId: string, companyId: string, target: SimulationTarget, reason?: FormationFailureReason): Promise<Company> {
      const { company } = await deps.readState(partnerId, companyId);
      if (!company) throw notFound(`company ${companyId}`);
      if (isFinal(company)) throw finalRefusal(company);
      const claim = await claimFor(partnerId, companyId);
      if (claim === 'none') {
        // Every formation still going has a step; none left means it ended (or was reset) meanwhile.
        const { company: now } = await deps.readState(partnerId, companyId);
        if (!now) throw notFound(`company ${companyId}`);
        if (isFinal(now)) throw finalRefusal(now);
        throw new Error(`company ${companyId} is ${now.status} but has no formation step`);
      }
      try {
        return await advance(claim, target, reason);
      } catch (error) {
        // Whatever failed (a document that could not be made, the store), the formation is left as it was, at once,
        // rather than held until the claim runs out: a retry finds it free.
        await store.hold((tx) => releaseStep(tx, claim)).catch(() => undefined);
        throw error;
      }
    },
  };
}
