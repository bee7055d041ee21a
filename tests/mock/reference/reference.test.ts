import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  countries,
  filingFeeProvenance,
  filingFees,
  findFilingFees,
  findNaicsIndustries,
  getCountry,
  getNaicsIndustry,
  getState,
  isCountryCode,
  isNaicsCode,
  isStateCode,
  naicsIndustries,
  contractNaicsEdition,
  naicsSource,
  usStates,
} from '../../../mock/reference/index.js';
import { contractErrors } from './contract-schemas.js';

function isSortedByCode(list: readonly { code: string }[]): boolean {
  return list.every((item, index) => index === 0 || list[index - 1]!.code < item.code);
}

describe('the contract schema check', () => {
  it('rejects records that break the contract, so its passes mean something', () => {
    expect(contractErrors('Country', { code: 'usa', alpha2: 'US', name: 'United States' })).not.toBe('');
    expect(contractErrors('UsState', { code: 'DC', name: 'District of Columbia', type: 'TERRITORY' })).not.toBe('');
    expect(contractErrors('NaicsIndustry', { code: '54151', title: 'Custom Computer Programming' })).not.toBe('');
    const fee = { state: 'DE', entityType: 'LLC', amountCents: 110.5, currency: 'USD' };
    expect(contractErrors('FilingFee', fee)).not.toBe('');
  });
});

describe('countries', () => {
  it('are the ISO 3166-1 countries, ordered by unique alpha-3 code', () => {
    expect(countries.length).toBeGreaterThanOrEqual(245);
    expect(countries.length).toBeLessThanOrEqual(255);
    expect(isSortedByCode(countries)).toBe(true);
    expect(new Set(countries.map((country) => country.alpha2)).size).toBe(countries.length);
  });

  it('include the USA, the United Kingdom and Germany', () => {
    expect(getCountry('USA')).toEqual({ code: 'USA', alpha2: 'US', name: 'United States of America' });
    expect(getCountry('GBR')?.alpha2).toBe('GB');
    expect(getCountry('DEU')?.alpha2).toBe('DE');
  });

  it('leave out codes that ISO 3166-1 never assigned', () => {
    expect(countries.some((country) => country.alpha2 === 'XK')).toBe(false);
  });

  it('match the contract patterns', () => {
    for (const country of countries) {
      expect(country.code).toMatch(/^[A-Z]{3}$/);
      expect(country.alpha2).toMatch(/^[A-Z]{2}$/);
    }
  });

  it('each validate against the Country schema', () => {
    for (const country of countries) expect(contractErrors('Country', country), country.code).toBe('');
  });
});

describe('US states', () => {
  it('are the 50 states and DC, ordered by USPS code', () => {
    expect(usStates).toHaveLength(51);
    expect(isSortedByCode(usStates)).toBe(true);
    expect(usStates.filter((state) => state.type === 'STATE')).toHaveLength(50);
    expect(usStates.filter((state) => state.type === 'DISTRICT')).toEqual([
      { code: 'DC', name: 'District of Columbia', type: 'DISTRICT' },
    ]);
  });

  it('leave out the territories', () => {
    for (const code of ['PR', 'GU', 'VI', 'AS', 'MP']) expect(isStateCode(code)).toBe(false);
  });

  it('match the contract pattern and validate against the UsState schema', () => {
    for (const state of usStates) {
      expect(state.code).toMatch(/^[A-Z]{2}$/);
      expect(contractErrors('UsState', state), state.code).toBe('');
    }
  });
});

describe('NAICS industries', () => {
  it('are six-digit codes with titles, ordered by unique code', () => {
    expect(naicsIndustries.length).toBeGreaterThanOrEqual(1000);
    expect(isSortedByCode(naicsIndustries)).toBe(true);
    for (const industry of naicsIndustries) {
      expect(industry.code).toMatch(/^[0-9]{6}$/);
      expect(industry.title).toBe(industry.title.trim());
      expect(contractErrors('NaicsIndustry', industry), industry.code).toBe('');
    }
  });

  it('are the edition the contract names, from the vendored Census file its provenance describes', () => {
    // The edition every NAICS schema of the bundle names in its description.
    const bundle = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));
    const named = ['NaicsCode', 'NaicsIndustry', 'NaicsIndustryPage'].map((name) => /NAICS (\d{4})/.exec(bundle.components.schemas[name].description)?.[1]);
    expect(new Set(named)).toEqual(new Set([String(contractNaicsEdition)]));
    expect(naicsSource.edition).toBe(contractNaicsEdition);
    const vendored = readFileSync(new URL('../../../mock/reference/naics-2022/naics-2022.json', import.meta.url));
    expect(createHash('sha256').update(vendored).digest('hex')).toBe(naicsSource.sha256);
    const provenance = readFileSync(new URL('../../../mock/reference/naics-2022/SOURCE.md', import.meta.url), 'utf8');
    expect(provenance).toContain(naicsSource.sha256);
    expect(provenance).toContain('U.S. Census Bureau');
  });

  it('are every six-digit national industry of NAICS 2022', () => {
    expect(naicsIndustries).toHaveLength(1012);
    expect(getNaicsIndustry('541511')).toEqual({ code: '541511', title: 'Custom Computer Programming Services' });
    expect(isNaicsCode('722511')).toBe(true);
  });

  it('are the 2022 edition: 513210 replaces 511210, 455110 replaces 452210', () => {
    expect(getNaicsIndustry('513210')?.title).toBe('Software Publishers');
    expect(isNaicsCode('511210')).toBe(false);
    expect(getNaicsIndustry('455110')?.title).toBe('Department Stores');
    expect(isNaicsCode('454110')).toBe(false);
  });

  it('refuse codes that are not six-digit industries', () => {
    for (const code of ['54', '5415', '54151', '5415111', '31-33', '', '999999']) expect(isNaicsCode(code)).toBe(false);
  });
});

describe('findNaicsIndustries', () => {
  it('takes digits as a code prefix', () => {
    const found = findNaicsIndustries('5415');
    expect(found.map((industry) => industry.code)).toEqual(['541511', '541512', '541513', '541519']);
    expect(findNaicsIndustries('541511').map((industry) => industry.code)).toEqual(['541511']);
    expect(findNaicsIndustries('54').every((industry) => industry.code.startsWith('54'))).toBe(true);
    expect(findNaicsIndustries('0')).toEqual([]);
  });

  it('takes anything else as words that must all be in the title, ignoring case', () => {
    const found = findNaicsIndustries('COMPUTER programming');
    expect(found.map((industry) => industry.code)).toEqual(['541511']);
    expect(findNaicsIndustries('software').length).toBeGreaterThan(1);
    expect(findNaicsIndustries('software').every((industry) => /software/i.test(industry.title))).toBe(true);
    // Words, not a phrase: "Oilseed (except Soybean) Farming" has both words too.
    expect(findNaicsIndustries('  farming   soybean ').map((industry) => industry.code)).toEqual(['111110', '111120']);
    expect(findNaicsIndustries('no such industry anywhere')).toEqual([]);
  });

  it('returns results in code order', () => {
    expect(isSortedByCode(findNaicsIndustries('services'))).toBe(true);
    expect(isSortedByCode(findNaicsIndustries('5'))).toBe(true);
  });

  it('matches everything for a blank query', () => {
    expect(findNaicsIndustries('')).toHaveLength(naicsIndustries.length);
    expect(findNaicsIndustries('   ')).toHaveLength(naicsIndustries.length);
  });
});

describe('lookups', () => {
  it('answer exact codes only', () => {
    expect(isCountryCode('USA')).toBe(true);
    expect(isCountryCode('usa')).toBe(false);
    expect(isCountryCode('US')).toBe(false);
    expect(isCountryCode('ZZZ')).toBe(false);
    expect(isStateCode('DE')).toBe(true);
    expect(isStateCode('de')).toBe(false);
    expect(isStateCode('DEL')).toBe(false);
    expect(getState('WY')).toEqual({ code: 'WY', name: 'Wyoming', type: 'STATE' });
    expect(getState('XX')).toBeUndefined();
  });

  it('do not answer for inherited object keys', () => {
    for (const code of ['constructor', 'toString', '__proto__']) {
      expect(isCountryCode(code)).toBe(false);
      expect(isStateCode(code)).toBe(false);
      expect(isNaicsCode(code)).toBe(false);
    }
  });
});

describe('filing fees', () => {
  it('give both entity types for every state of the states list, and no other state', () => {
    expect(filingFees).toHaveLength(usStates.length * 2);
    for (const state of usStates) {
      const fees = findFilingFees({ state: state.code });
      expect(fees.map((fee) => fee.entityType), state.code).toEqual(['LLC', 'CCorp']);
    }
    expect(new Set(filingFees.map((fee) => fee.state))).toEqual(new Set(usStates.map((state) => state.code)));
  });

  it('are non-negative integer cents of USD, each valid against the FilingFee schema', () => {
    for (const fee of filingFees) {
      expect(Number.isInteger(fee.amountCents) && fee.amountCents >= 0, `${fee.state} ${fee.entityType}`).toBe(true);
      expect(fee.currency).toBe('USD');
      expect(contractErrors('FilingFee', fee), `${fee.state} ${fee.entityType}`).toBe('');
    }
  });

  it('are ordered by state, then entity type', () => {
    const keys = filingFees.map((fee) => `${fee.state}/${fee.entityType === 'LLC' ? 0 : 1}`);
    expect(keys).toEqual([...keys].sort());
  });

  it('carry the known reference figures', () => {
    const amount = (state: string, entityType: 'LLC' | 'CCorp') =>
      findFilingFees({ state, entityType })[0]?.amountCents;
    expect(amount('DE', 'LLC')).toBe(11000);
    expect(amount('DE', 'CCorp')).toBe(10900);
    expect(amount('WY', 'LLC')).toBe(10000);
    expect(amount('CA', 'LLC')).toBe(7000);
    expect(amount('CA', 'CCorp')).toBe(10000);
    expect(amount('NY', 'LLC')).toBe(20000);
    expect(amount('TX', 'CCorp')).toBe(30000);
    expect(amount('FL', 'CCorp')).toBe(7000);
  });

  it('filter by state, entity type, both or neither', () => {
    expect(findFilingFees()).toBe(filingFees);
    expect(findFilingFees({})).toHaveLength(102);
    expect(findFilingFees({ entityType: 'CCorp' })).toHaveLength(51);
    expect(findFilingFees({ entityType: 'CCorp' }).every((fee) => fee.entityType === 'CCorp')).toBe(true);
    expect(findFilingFees({ state: 'NY', entityType: 'LLC' })).toEqual([
      { state: 'NY', entityType: 'LLC', amountCents: 20000, currency: 'USD' },
    ]);
    expect(findFilingFees({ state: 'PR' })).toEqual([]);
    expect(findFilingFees({ state: 'ZZ', entityType: 'LLC' })).toEqual([]);
  });

  it('name their sources, date and caveat', () => {
    expect(filingFeeProvenance.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(filingFeeProvenance.note).toMatch(/change/i);
    expect(filingFeeProvenance.note).toMatch(/state's fee only/i);
    expect(new Set(filingFeeProvenance.sources.map((source) => source.state))).toEqual(
      new Set(usStates.map((state) => state.code)),
    );
    for (const source of filingFeeProvenance.sources) {
      expect(source.title.length, source.state).toBeGreaterThan(0);
      expect(new URL(source.url).protocol, source.state).toBe('https:');
    }
  });
});
