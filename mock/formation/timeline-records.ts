/**
 * The formation timeline as the store keeps it: each company's next step with the time it is due, taken by one
 * process at a time with a claim (a random token and a lease, in an ephemeral record). A claim whose holder died
 * runs out and can be taken again; a commit made with a claim no longer held changes nothing and says so. The
 * step's change (the company, a document, the webhook events that announce it) is written by the same transaction
 * that moves the timeline on, so they are stored together or not at all.
 */
import type { Company } from '../../generated/openapi.js';
import { updateCompany } from '../companies/company-records.ts';
import { insertDocument, type StoredDocument } from '../documents/document-records.ts';
import { key, numberPart, parts, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import { newClaimToken } from '../leases/claim-token.ts';
import { nextDueAt, takeDue } from '../leases/due-work.ts';

/** A due time that never comes: the step of a formation on the manual timeline waits for a simulation. */
export const never = 8_640_000_000_000_000;

/** A hold on one company's formation: its steps run under it, one process at a time. */
export interface StepClaim {
  partnerId: string;
  companyId: string;
  token: string;
  /** When the claimed step was due (`never` on the manual timeline). */
  dueAt: number;
}

export type CompanyClaim = StepClaim | 'busy' | 'none';

/** After a commit: keep holding the claim (more steps follow at once), schedule the next step, or end the timeline. */
export type NextStep = { keep: true } | { dueAt: number } | { done: true };

/** What a step changes, written with the step: the company, a document that became ready, and its events (stored by `storeEvents`). */
export interface CompanyChange<E> {
  company: Company;
  document?: StoredDocument;
  events: readonly E[];
}

interface Step {
  partnerId: string;
  dueAt: number;
}

interface Claim {
  token: string;
  until: number;
}

/** company id → its next step. */
const steps = table<Step>('formation_steps');
/** due time, company id: the steps in the order they fall due. */
const byDue = table<number>('formation_steps_by_due', { ordered: true });
/** partner, company id: what a partner's reset ends. */
const byPartner = table<number>('formation_steps_by_partner', { ordered: true });
const claims = table<Claim>('formation_step_claims', { ephemeral: true });

/** Inside the transaction that stores the company: its first step, due at `dueAt`. */
export function insertStep(tx: Tx, partnerId: string, companyId: string, dueAt: number): void {
  tx.put(steps, key(companyId), { partnerId, dueAt });
  tx.put(byDue, key(dueAt, companyId), 1);
  tx.put(byPartner, key(partnerId, companyId), 1);
}

/** Claims up to `limit` steps due by `now` that nobody holds (or whose holder's lease ran out), earliest first. A hold. */
export function claimDue(tx: Tx, now: number, leaseMs: number, limit: number): StepClaim[] {
  return takeDue(tx, byDue, now, limit, (entryKey) => {
    const claim = claimStep(tx, parts(entryKey)[1] as string, now, leaseMs);
    return typeof claim === 'object' ? claim : undefined;
  });
}

/** Claims a company's timeline whatever its due time (for a simulation). A hold. */
export function claimCompany(tx: Tx, partnerId: string, companyId: string, now: number, leaseMs: number): CompanyClaim {
  const step = tx.get(steps, key(companyId));
  if (!step || step.partnerId !== partnerId) return 'none';
  return claimStep(tx, companyId, now, leaseMs);
}

function claimStep(tx: Tx, companyId: string, now: number, leaseMs: number): CompanyClaim {
  const [step, held] = [tx.get(steps, key(companyId)), tx.get(claims, key(companyId))];
  if (!step) return 'none';
  if (held && held.until > now) return 'busy';
  const token = newClaimToken();
  tx.put(claims, key(companyId), { token, until: now + leaseMs });
  return { partnerId: step.partnerId, companyId, token, dueAt: step.dueAt };
}

/**
 * If the claim is still held: writes the change (the company, its document, and the events `storeEvents` stores)
 * and then keeps the claim, reschedules the next step (releasing the claim), or ends the timeline. False, with
 * nothing written, when the claim was lost (its lease ran out and another process took the step).
 */
export function commitStep<E>(
  tx: Tx,
  claim: StepClaim,
  change: CompanyChange<E> | undefined,
  next: NextStep,
  now: number,
  storeEvents: (tx: Tx, events: readonly E[], now: number) => void,
): boolean {
  const held = tx.get(claims, key(claim.companyId));
  if (held?.token !== claim.token || held.until <= now) return false;
  if (change) {
    updateCompany(tx, claim.partnerId, change.company);
    if (change.document) insertDocument(tx, claim.partnerId, change.document);
    storeEvents(tx, change.events, now);
  }
  if ('keep' in next) return true;
  tx.delete(claims, key(claim.companyId));
  const step = tx.get(steps, key(claim.companyId));
  if (step) tx.delete(byDue, key(step.dueAt, claim.companyId));
  if ('done' in next) {
    tx.delete(steps, key(claim.companyId));
    tx.delete(byPartner, key(claim.partnerId, claim.companyId));
  } else if (step) insertStep(tx, step.partnerId, claim.companyId, next.dueAt);
  return true;
}

/**
 * The earliest time a step may be claimed: a free step's due time; for a held one, the later of its due time and the
 * end of its lease (so a lease run out on a step that is never due does not read as work due now). Undefined when no
 * step waits.
 */
export function nextStepDueAt(tx: Tx): number | undefined {
  return nextDueAt(tx, byDue, (entryKey) => tx.get(claims, key(parts(entryKey)[1] as string), { snapshot: true })?.until);
}

/** Ends up to `limit` of the partner's timelines (its reset); true when none is left. */
export function forgetSteps(tx: Tx, partnerId: string, limit: number): boolean {
  const entries = tx.scan(byPartner, within([partnerId], { limit }));
  for (const entry of entries) {
    const companyId = parts(entry.key)[1] as string;
    const step = tx.get(steps, key(companyId));
    if (step) tx.delete(byDue, key(step.dueAt, companyId));
    tx.delete(steps, key(companyId));
    tx.delete(claims, key(companyId));
    tx.delete(byPartner, entry.key);
  }
  return entries.length < limit;
}

/** Gives a claim back at once (a simulation that failed half-way): the step is due again as it was. A hold. */
export function releaseStep(tx: Tx, claim: StepClaim): void {
  if (tx.get(claims, key(claim.companyId))?.token === claim.token) tx.delete(claims, key(claim.companyId));
}
