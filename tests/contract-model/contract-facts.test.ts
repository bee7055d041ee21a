/** The facts the contract states as extensions: read from the bundle, the same as generated, and as its prose says. */
import { describe, expect, it } from 'vitest';
import { readContractFacts } from '../../contract-model/contract-facts.ts';
import { loadContractSync } from '../../contract-model/document.ts';
import { contractFacts } from '../../generated/contract-facts.ts';

const contract = loadContractSync();
const schemas = (contract.components as { schemas: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> }).schemas;

describe('the contract facts', () => {
  const facts = readContractFacts(contract);

  it('are what generated/contract-facts.ts holds', () => {
    expect(contractFacts).toEqual(facts);
  });

  it('agree with the prose that states them to readers', () => {
    const prose = (text: string | undefined) => (text ?? '').replace(/\s+/g, ' ');
    for (const suffix of [...facts.entitySuffixes.LLC, ...facts.entitySuffixes.CCorp]) expect(prose(schemas.CompanyName?.description)).toContain(`\`${suffix}\``);
    const officers = prose(schemas.CCorpFormationRequest?.properties?.executiveMembers?.description);
    for (const role of facts.officerRoles.required) expect(officers).toContain(`\`${role}\``);
    expect(new RegExp(facts.apiKey.format).test(`${facts.apiKey.prefixes.sandbox}${'a'.repeat(24)}`)).toBe(true);
    expect(new RegExp(facts.apiKey.format).test(`${facts.apiKey.prefixes.production}${'a'.repeat(23)}`)).toBe(false);
  });

  it('refuse a contract that lacks one, naming it', () => {
    const broken = structuredClone(contract);
    delete (broken.components as { schemas: Record<string, Record<string, unknown>> }).schemas.CompanyName!['x-entity-suffixes'];
    expect(() => readContractFacts(broken)).toThrow('the contract gives no CompanyName x-entity-suffixes.LLC');
  });
});
