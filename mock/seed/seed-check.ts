/**
 * A seed is all or nothing: before anything is written, every entry is put through the checks the API would put
 * its request through (the contract's request validators, the same compiled set the API's pipeline runs, then the
 * handlers' own rules), so that an entry the API would refuse refuses the whole seed with nothing applied. The
 * seed then goes through the API as before; what can still refuse it there is not in the seed (a store that cannot
 * write, a forced answer armed for the partner, a crash), and seed.ts says what was applied by then.
 */
import type { FieldError, FormationStatus } from '../../generated/openapi.js';
import { checkFormationRules, type FormationRequest } from '../companies/formation-rules.ts';
import { customerRuleProblems } from '../customers/customer-handlers.ts';
import { newId } from '../ids.ts';
import type { RequestValidator } from '../pipeline/request-validator.ts';
import type { SeedCompany, SeedCustomer } from './seed-document.ts';

export type RequestValidatorOf = (operationId: string) => RequestValidator | undefined;

/** How far along a formation is: a status is reached from those before it, never from one as far or further. */
const progress: Record<FormationStatus, number> = { PENDING: 0, SUBMITTED: 1, COMPLETED: 2, FAILED: 2 };

/**
 * The simulation that takes a company at `from` (a new one: PENDING) to the seed's status; none when it is there
 * already, or past it (a formation never moves back, nor from one final status to the other).
 */
export function simulationFor(seed: SeedCompany, from: FormationStatus = 'PENDING'): { target: 'NEXT' | 'COMPLETED' | 'FAILED'; failureReason?: SeedCompany['failureReason'] } | undefined {
  const status = seed.status ?? 'PENDING';
  if (progress[from] >= progress[status]) return undefined;
  if (status === 'SUBMITTED') return { target: 'NEXT' };
  return status === 'FAILED' ? { target: 'FAILED', failureReason: seed.failureReason ?? 'STATE_REJECTED' } : { target: 'COMPLETED' };
}

/** An API's field errors as the seed's: body pointers moved under `at`, the entry itself for anything else. */
export function underSeedEntry(at: string, details: readonly FieldError[]): FieldError[] {
  return details.map((detail) => ({ ...detail, in: 'body', field: detail.in === 'body' ? `${at}${detail.field}` : at }));
}

/** What the API would refuse in one customer entry (at `at`, a pointer into the seed), its companies included. */
export function entryProblems(entry: SeedCustomer, at: string, options: { validatorOf: RequestValidatorOf; sandbox: boolean }): FieldError[] {
  const check = (operationId: string, body: unknown, pathParams: Record<string, string> = {}) => {
    const verdict = options.validatorOf(operationId)?.({ pathParams, query: new URLSearchParams(), headers: {}, body });
    return verdict && !verdict.ok ? verdict.details : [];
  };
  const customer = check('createCustomer', entry.customer);
  const problems = underSeedEntry(`${at}/customer`, customer.length > 0 ? customer : customerRuleProblems(entry.customer));
  for (const [n, seed] of (entry.companies ?? []).entries()) {
    const where = `${at}/companies/${n}`;
    if ((seed.status ?? 'PENDING') !== 'PENDING' && !options.sandbox) {
      problems.push({ in: 'body', field: `${where}/status`, code: 'E_NOT_ALLOWED_VALUE', message: `Reaching ${seed.status} needs the sandbox's simulation; this mock plays production: only PENDING.` });
    }
    // The customer it goes under is made by the seed itself: any id of the right form stands for it here.
    const formation = { ...seed.formation, serviceCustomerId: newId('cus') } as FormationRequest;
    const schema = check('createCompany', formation);
    problems.push(...underSeedEntry(`${where}/formation`, schema.length > 0 ? schema : checkFormationRules(formation, true)));
    const simulation = simulationFor(seed);
    if (simulation) problems.push(...underSeedEntry(where, check('simulateCompanyFormation', simulation, { companyId: newId('com') })));
  }
  return problems;
}
