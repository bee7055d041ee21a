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
import { ApiError, notFound } from '../http/api-error.ts';
import { createWorkScheduler } from '../scheduling/work-scheduler.ts';
import { never, type NextStep, type StepClaim, type Store } from '../store/store.ts';
import type { DocumentFactory } from './document-factory.ts';
import { changeFor, failureFor, nextStep, readyAfter, type LifecycleContext } from './lifecycle.ts';
import type { EventDestinations } from './webhook-events.ts';

export type SimulationTarget = 'NEXT' | 'COMPLETED' | 'FAILED';

export interface FormationEngine {
  /** Stores a new company with its first step. */
  start(partnerId: string, company: Company): Promise<void>;
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

export function createFormationEngine(options: {
  store: Store;
  destinations: EventDestinations;
  documents: DocumentFactory;
  timeline: FormationTimeline;
  now: () => Date;
  logger: Logger;
  pollMs?: number;
}): FormationEngine {
  const { store, destinations, documents, timeline, now, logger } = options;
  const chains = new Map<string, Promise<unknown>>();
  const auto = timeline.mode === 'auto';

  /** Runs `work` after every earlier piece of work on the same company in this process. */
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

  const context = (partnerId: string): LifecycleContext => ({ partnerId, documents, destinations });
  const readyTypes = async (partnerId: string, companyId: string): Promise<DocumentType[]> =>
    (await store.documents.list(partnerId, companyId, { limit: 100 })).items.map((document) => document.type);
  const scheduleAfter = (dueAt: number): NextStep => ({ dueAt: auto ? dueAt + timeline.stepDelayMs : never });

  /** Takes one due step under its claim; a claim lost meanwhile (another process took the step) changes nothing. */
  const runStep = (claim: StepClaim) =>
    serially(claim.companyId, async () => {
      const company = await store.companies.get(claim.partnerId, claim.companyId);
      const ready = company ? await readyTypes(claim.partnerId, claim.companyId) : [];
      const step = company && nextStep(company, ready, documents);
      if (!company || !step) {
        await store.timeline.commit(claim, undefined, { done: true }, Date.now());
        return;
      }
      const change = await changeFor(context(claim.partnerId), company, step, now());
      const more = nextStep(change.company, readyAfter(ready, change), documents) !== undefined;
      const committed = await store.timeline.commit(claim, change, more ? scheduleAfter(claim.dueAt) : { done: true }, Date.now());
      if (committed) destinations.notify();
      else logger.warn({ companyId: claim.companyId, step: step.kind }, 'formation step dropped: its claim ran out and another process took it');
    });

  const scheduler = createWorkScheduler({
    pollMs: store.shared ? (options.pollMs ?? 250) : undefined,
    onError: (error) => logger.error({ err: error }, 'formation timeline failed; retrying'),
    async work() {
      const claims = await store.timeline.claimDue(Date.now(), stepLeaseMs, claimBatch);
      const results = await Promise.allSettled(claims.map(runStep));
      for (const [index, result] of results.entries()) {
        // The claim is kept until its lease runs out, so the step is tried again then, by this process or another.
        if (result.status === 'rejected') logger.error({ err: result.reason, companyId: claims[index]?.companyId }, 'formation step failed; it will be retried');
      }
      if (claims.length === claimBatch) return Date.now();
      const next = await store.timeline.nextDueAt();
      // Never a time already past when nothing was claimable: that would make the scheduler spin.
      return next === undefined ? undefined : Math.max(next, Date.now() + 10);
    },
  });
  scheduler.wake();

  /** Claims the company's timeline for a simulation, waiting out another process's step in progress. */
  const claimForSimulation = async (partnerId: string, companyId: string): Promise<StepClaim | 'none'> => {
    const deadline = Date.now() + busyWaitMs;
    for (;;) {
      const claim = await store.timeline.claim(partnerId, companyId, Date.now(), stepLeaseMs);
      if (claim !== 'busy') return claim;
      if (Date.now() > deadline) {
        throw new ApiError(503, 'E_SERVICE_UNAVAILABLE', 'The formation is being advanced by another request; retry after Retry-After.', undefined, { 'retry-after': '1' });
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const finalRefusal = (company: Company) => new ApiError(409, 'E_FORMATION_ALREADY_FINAL', `The formation is already ${company.status}; it cannot move.`);
  const isFinal = (company: Company) => company.status === 'COMPLETED' || company.status === 'FAILED';

  const simulateClaimed = async (claim: StepClaim, target: SimulationTarget, reason: FormationFailureReason | undefined): Promise<Company> => {
    const { partnerId, companyId } = claim;
    let company = await store.companies.get(partnerId, companyId);
    // Refused without touching the timeline: a refused simulation (a final formation still getting its EIN and
    // documents) must leave the formation going as it was.
    if (!company || isFinal(company)) {
      await store.timeline.commit(claim, undefined, { dueAt: claim.dueAt }, Date.now());
      throw company ? finalRefusal(company) : notFound(`company ${companyId}`);
    }
    if (target === 'FAILED') {
      const change = await failureFor(context(partnerId), company, reason ?? 'STATE_REJECTED', now());
      await commitOrFail(claim, change, { done: true });
      return change.company;
    }
    // NEXT takes one status step; reaching COMPLETED (by NEXT or COMPLETED) also issues the EIN and documents.
    const stopAfterStatus = target === 'NEXT' && company.status === 'PENDING';
    let ready = await readyTypes(partnerId, companyId);
    for (let step = nextStep(company, ready, documents); step; step = nextStep(company, ready, documents)) {
      const change = await changeFor(context(partnerId), company, step, now());
      await commitOrFail(claim, change, { keep: true });
      company = change.company;
      ready = readyAfter(ready, change);
      if (stopAfterStatus) break;
    }
    const more = nextStep(company, ready, documents) !== undefined;
    await commitOrFail(claim, undefined, more ? scheduleAfter(Date.now()) : { done: true });
    return company;
  };

  const commitOrFail = async (claim: StepClaim, change: Parameters<Store['timeline']['commit']>[1], next: NextStep) => {
    if (!(await store.timeline.commit(claim, change, next, Date.now()))) {
      throw new Error(`the simulation of ${claim.companyId} lost its claim on the timeline`);
    }
    if (change) destinations.notify();
  };

  return {
    async start(partnerId, company) {
      await store.timeline.insert(partnerId, company, auto ? Date.now() + timeline.stepDelayMs : never);
      if (auto) scheduler.wake(Date.now() + timeline.stepDelayMs);
    },

    simulate(partnerId, companyId, target, reason) {
      return serially(companyId, async () => {
        const company = await store.companies.get(partnerId, companyId);
        if (!company) throw notFound(`company ${companyId}`);
        if (isFinal(company)) throw finalRefusal(company);
        const claim = await claimForSimulation(partnerId, companyId);
        if (claim === 'none') {
          // Every formation still going has a step; none left means it ended (or was reset) meanwhile.
          const now = await store.companies.get(partnerId, companyId);
          if (!now) throw notFound(`company ${companyId}`);
          if (isFinal(now)) throw finalRefusal(now);
          throw new Error(`company ${companyId} is ${now.status} but has no formation step`);
        }
        const result = await simulateClaimed(claim, target, reason);
        if (auto) scheduler.wake(Date.now() + timeline.stepDelayMs);
        return result;
      });
    },

    async close() {
      await scheduler.close();
      await Promise.allSettled([...chains.values()]);
    },
  };
}
