import type { Country, EntityType, FilingFee, NaicsIndustry, UsState } from '../../generated/openapi.js';
import { countries } from './countries.js';
import { ENTITY_TYPES, filingFeeProvenance, filingFees } from './filing-fees.js';
import { contractNaicsEdition, naicsIndustries, naicsSource } from './naics.js';
import { usStates } from './states.js';

export { countries, usStates, contractNaicsEdition, naicsIndustries, naicsSource, filingFees, filingFeeProvenance };
export type { NaicsSource } from './naics.js';
export type { FilingFeeProvenance, FilingFeeSource } from './filing-fees.js';

// Indexes are built once here so that validating a formation request never scans a list.
const countryByCode = new Map<string, Country>(countries.map((country) => [country.code, country]));
const stateByCode = new Map<string, UsState>(usStates.map((state) => [state.code, state]));
const naicsByCode = new Map<string, NaicsIndustry>(naicsIndustries.map((industry) => [industry.code, industry]));

// Every prefix of every code, so that a digit query is one map read; about six entries per industry.
const naicsByPrefix = new Map<string, NaicsIndustry[]>();
for (const industry of naicsIndustries) {
  for (let length = 1; length <= industry.code.length; length += 1) {
    const prefix = industry.code.slice(0, length);
    const bucket = naicsByPrefix.get(prefix);
    if (bucket) bucket.push(industry);
    else naicsByPrefix.set(prefix, [industry]);
  }
}
for (const bucket of naicsByPrefix.values()) Object.freeze(bucket);

const naicsSearchTitles = naicsIndustries.map((industry) => ({ industry, title: industry.title.toLowerCase() }));

const feesByState = new Map<string, FilingFee[]>();
const feesByEntityType = new Map<EntityType, FilingFee[]>(ENTITY_TYPES.map((type) => [type, []]));
const feeByStateAndType = new Map<string, FilingFee>();
for (const fee of filingFees) {
  const ofState = feesByState.get(fee.state);
  if (ofState) ofState.push(fee);
  else feesByState.set(fee.state, [fee]);
  feesByEntityType.get(fee.entityType)?.push(fee);
  feeByStateAndType.set(`${fee.state}/${fee.entityType}`, fee);
}
for (const list of [...feesByState.values(), ...feesByEntityType.values()]) Object.freeze(list);

const NONE: readonly never[] = Object.freeze([]);

export function isCountryCode(code: string): boolean {
  return countryByCode.has(code);
}

export function isStateCode(code: string): boolean {
  return stateByCode.has(code);
}

export function isNaicsCode(code: string): boolean {
  return naicsByCode.has(code);
}

export function getCountry(code: string): Country | undefined {
  return countryByCode.get(code);
}

export function getState(code: string): UsState | undefined {
  return stateByCode.get(code);
}

export function getNaicsIndustry(code: string): NaicsIndustry | undefined {
  return naicsByCode.get(code);
}

/**
 * The industries matching a `listNaicsCodes` query, in code order: all digits is a code prefix; anything else is
 * a list of words that must each appear in the title, ignoring case. A blank query matches everything.
 */
export function findNaicsIndustries(q: string): readonly NaicsIndustry[] {
  const query = q.trim();
  if (query === '') return naicsIndustries;
  if (/^[0-9]+$/.test(query)) return naicsByPrefix.get(query) ?? NONE;
  const words = query.toLowerCase().split(/\s+/);
  return naicsSearchTitles
    .filter(({ title }) => words.every((word) => title.includes(word)))
    .map(({ industry }) => industry);
}

/** The filing fees for one state, one entity type, both or neither, by state then entity type. */
export function findFilingFees(filter: { state?: string; entityType?: EntityType } = {}): readonly FilingFee[] {
  const { state, entityType } = filter;
  if (state !== undefined && entityType !== undefined) {
    const fee = feeByStateAndType.get(`${state}/${entityType}`);
    return fee ? [fee] : NONE;
  }
  if (state !== undefined) return feesByState.get(state) ?? NONE;
  if (entityType !== undefined) return feesByEntityType.get(entityType) ?? NONE;
  return filingFees;
}
