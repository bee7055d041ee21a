/**
 * The rules of a formation that JSON Schema cannot express, each reported with its own field-level code
 * (see "Rules checked on submission" in the contract). All are checked, so one answer lists every problem.
 */
import type { CCorpFormationRequest, FieldError, LlcFormationRequest, OfficerRole } from '../../generated/openapi.js';
import { contractFacts } from '../../generated/contract-facts.ts';
import { isCountryCode, isNaicsCode, isStateCode } from '../reference/index.ts';

export type FormationRequest = LlcFormationRequest | CCorpFormationRequest;

// As the contract states them (x-entity-suffixes, x-required-roles, x-single-holder-roles): see contract-facts.ts.
const suffixes = contractFacts.entitySuffixes;
const requiredRoles = contractFacts.officerRoles.required as OfficerRole[];
const singleHolderRoles = new Set(contractFacts.officerRoles.singleHolder as OfficerRole[]);

export function checkFormationRules(request: FormationRequest, customerExists: boolean): FieldError[] {
  const entityType = request.entityType ?? 'LLC';
  const problems: FieldError[] = [];
  const report = (field: string, code: FieldError['code'], message: string) => problems.push({ in: 'body', field, code, message });

  if (!customerExists) report('/serviceCustomerId', 'E_CUSTOMER_NOT_FOUND', `No customer ${request.serviceCustomerId}.`);
  if (!isStateCode(request.state)) report('/state', 'E_STATE_UNKNOWN', `${request.state} is not one of the 50 states or DC.`);
  if (!isNaicsCode(request.naicsCode)) report('/naicsCode', 'E_NAICS_CODE_UNKNOWN', `${request.naicsCode} is not a NAICS 2022 national industry.`);
  for (const address of ['mailingAddress', 'businessAddress'] as const) {
    const country = request[address].country;
    if (!isCountryCode(country)) report(`/${address}/country`, 'E_COUNTRY_UNKNOWN', `${country} is not an ISO 3166-1 alpha-3 country code.`);
  }
  request.nameOptions.forEach((name, index) => {
    if (!hasSuffix(name, suffixes[entityType])) {
      report(`/nameOptions/${index}`, 'E_ENTITY_SUFFIX_MISMATCH', `A${entityType === 'LLC' ? 'n LLC' : ' CCorp'} name must end with ${suffixes[entityType].join(', ')}.`);
    }
  });
  if (request.entityType === 'CCorp') problems.push(...checkOfficers(request));
  else problems.push(...checkOwnership(request));
  return problems;
}

function hasSuffix(name: string, allowed: string[]): boolean {
  const lower = name.toLowerCase();
  return allowed.some((suffix) => lower.endsWith(` ${suffix.toLowerCase()}`));
}

function checkOwnership(request: LlcFormationRequest): FieldError[] {
  // In hundredths, so that 33.33 + 33.33 + 33.34 is exactly 100 and not 99.99999999999999.
  const total = request.members.reduce((sum, member) => sum + Math.round(member.ownershipPercent * 100), 0);
  return total === 10_000
    ? []
    : [{ in: 'body', field: '/members', code: 'E_OWNERSHIP_TOTAL_INVALID', message: `Member ownership must total exactly 100; it totals ${total / 100}.` }];
}

function checkOfficers(request: CCorpFormationRequest): FieldError[] {
  const problems: FieldError[] = [];
  const holders = new Map<OfficerRole, number>();
  request.executiveMembers.forEach((member, index) => {
    for (const role of member.roles) {
      const first = holders.get(role);
      if (first === undefined) holders.set(role, index);
      else if (singleHolderRoles.has(role)) {
        problems.push({ in: 'body', field: `/executiveMembers/${index}/roles`, code: 'E_OFFICER_ROLE_DUPLICATED', message: `${role} is already held by /executiveMembers/${first}.` });
      }
    }
  });
  const missing = requiredRoles.filter((role) => !holders.has(role));
  if (missing.length > 0) {
    problems.unshift({ in: 'body', field: '/executiveMembers', code: 'E_OFFICER_ROLE_MISSING', message: `No executive member holds ${missing.join(', ')}.` });
  }
  return problems;
}
