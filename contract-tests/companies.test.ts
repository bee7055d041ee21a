/**
 * createCompany, getCompany, listCompanies: both entity types accepted from the contract's examples, and every
 * rule of *Rules checked on submission* (read from the Companies tag) refused with its field-level code.
 */
import { describe, expect, it } from 'vitest';
import type { CCorpFormationRequest, FieldError, LlcFormationRequest } from '../generated/openapi.js';
import { api, apiError, ccorpRequest, llcRequest, newCompany, newCustomer, unknownId } from './support/fixtures.ts';
import { tagTable } from './support/contract.ts';

describe('createCompany', () => {
  it('accepts the LLC example: 202, PENDING, nothing decided yet', async () => {
    const customer = await newCustomer();
    const body = llcRequest(customer.serviceCustomerId);
    const { payload, meta } = await api.createCompany(body);
    expect(meta.status).toBe(202);
    expect(payload).toMatchObject({
      serviceCustomerId: customer.serviceCustomerId,
      entityType: 'LLC',
      status: 'PENDING',
      state: body.state,
      naicsCode: body.naicsCode,
      nameOptions: body.nameOptions,
      members: body.members,
      failure: null,
      filingDate: null,
      ein: null,
    });
    expect(body.nameOptions).toContain(payload.name);
  });

  it('accepts the CCorp example with its officers and share structure', async () => {
    const customer = await newCustomer();
    const body = ccorpRequest(customer.serviceCustomerId);
    const { payload, meta } = await api.createCompany(body);
    expect(meta.status).toBe(202);
    expect(payload).toMatchObject({
      entityType: 'CCorp',
      status: 'PENDING',
      executiveMembers: body.executiveMembers,
      shareStructure: body.shareStructure,
    });
  });

  it('takes LLC as the default entityType', async () => {
    const customer = await newCustomer();
    const { entityType: _entityType, ...withoutType } = llcRequest(customer.serviceCustomerId);
    const { payload } = await api.createCompany(withoutType);
    expect(payload.entityType).toBe('LLC');
  });
});

type FieldErrorCode = FieldError['code'];

/** Either example, with the properties of both, for scenarios that break one field of it. */
type FormationBody = Omit<LlcFormationRequest, 'entityType'> & Omit<CCorpFormationRequest, 'entityType'> & { entityType?: string };

interface RuleCase {
  /** What the scenario breaks, from the example of this entity type. */
  entityType: 'LLC' | 'CCorp';
  breakIt(body: FormationBody): void;
  /** The field the detail must name. */
  field: string;
}

/** One way to break each rule of the contract's table; the first test checks the table and this list agree. */
const ruleCases: Partial<Record<FieldErrorCode, RuleCase>> = {
  E_CUSTOMER_NOT_FOUND: {
    entityType: 'LLC',
    breakIt: (body) => void (body.serviceCustomerId = unknownId('cus')),
    field: '/serviceCustomerId',
  },
  E_STATE_UNKNOWN: { entityType: 'LLC', breakIt: (body) => void (body.state = 'ZZ'), field: '/state' },
  E_NAICS_CODE_UNKNOWN: { entityType: 'LLC', breakIt: (body) => void (body.naicsCode = '999999'), field: '/naicsCode' },
  E_COUNTRY_UNKNOWN: {
    entityType: 'CCorp',
    breakIt: (body) => void (body.businessAddress.country = 'ZZZ'),
    field: '/businessAddress/country',
  },
  E_ENTITY_SUFFIX_MISMATCH: {
    entityType: 'LLC',
    breakIt: (body) => void (body.nameOptions = [body.nameOptions[0] as string, 'Lovelace Analytics Inc.']),
    field: '/nameOptions/1',
  },
  E_OWNERSHIP_TOTAL_INVALID: {
    entityType: 'LLC',
    breakIt: (body) => void ((body.members[1] as { ownershipPercent: number }).ownershipPercent = 30),
    field: '/members',
  },
  E_OFFICER_ROLE_MISSING: {
    entityType: 'CCorp',
    breakIt: (body) =>
      void body.executiveMembers.forEach((member) => (member.roles = member.roles.filter((role) => role !== 'TREASURER'))),
    field: '/executiveMembers',
  },
  E_OFFICER_ROLE_DUPLICATED: {
    entityType: 'CCorp',
    breakIt: (body) => void (body.executiveMembers[1] as { roles: string[] }).roles.push('PRESIDENT'),
    field: '/executiveMembers/1/roles',
  },
};

const rulesTable = tagTable('Companies', ['Rule', 'Field', 'Code']).map((row) => ({
  rule: row.Rule as string,
  code: (row.Code as string).replaceAll('`', '') as FieldErrorCode,
  field: /`([^`]+)`/.exec(row.Field as string)?.[1] ?? '',
}));

async function refusedWith(entityType: 'LLC' | 'CCorp', breakIt: (body: FormationBody) => void) {
  const customer = await newCustomer();
  const body = (entityType === 'LLC' ? llcRequest(customer.serviceCustomerId) : ccorpRequest(customer.serviceCustomerId)) as FormationBody;
  breakIt(body);
  const error = await apiError(api.createCompany(body as LlcFormationRequest));
  expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  return error;
}

describe('the rules checked on submission', () => {
  it("has a scenario for every rule of the contract's table", () => {
    expect(rulesTable.length).toBeGreaterThanOrEqual(8);
    // The table names the field by example (`/nameOptions/1`): the index may differ, the place may not.
    const place = (field: string) => field.replace(/\/\d+/g, '/#');
    for (const row of rulesTable) {
      const scenario = ruleCases[row.code];
      expect(scenario, `a scenario for ${row.code} (${row.rule})`).toBeDefined();
      expect(place(scenario?.field ?? ''), `${row.code} is reported where the table says`).toBe(place(row.field));
    }
  });

  it.each(rulesTable.map((row) => [row.code, row.rule] as const))('refuses %s (%s)', async (code) => {
    const scenario = ruleCases[code];
    if (!scenario) throw new Error(`No scenario for ${code}.`);
    const error = await refusedWith(scenario.entityType, scenario.breakIt);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'body', code, field: scenario.field }));
  });

  it('lists every broken rule in one answer', async () => {
    const error = await refusedWith('LLC', (body) => {
      body.state = 'ZZ';
      body.naicsCode = '999999';
      (body.members[0] as { ownershipPercent: number }).ownershipPercent = 10;
    });
    expect(error.details.map((detail) => detail.code)).toEqual(
      expect.arrayContaining(['E_STATE_UNKNOWN', 'E_NAICS_CODE_UNKNOWN', 'E_OWNERSHIP_TOTAL_INVALID']),
    );
  });
});

describe('the schema of a formation', () => {
  it('refuses a property the contract does not define, at any depth (E_UNKNOWN_FIELD)', async () => {
    const error = await refusedWith('LLC', (body) => {
      Object.assign(body, { nickname: 'Engines' });
      Object.assign(body.members[0] as object, { middleName: 'King' });
    });
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'body', field: '/nickname', code: 'E_UNKNOWN_FIELD' }),
        expect.objectContaining({ in: 'body', field: '/members/0/middleName', code: 'E_UNKNOWN_FIELD' }),
      ]),
    );
  });

  it('refuses a missing required property (E_REQUIRED)', async () => {
    const error = await refusedWith('LLC', (body) => {
      delete (body as Partial<LlcFormationRequest>).naicsCode;
    });
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'body', field: '/naicsCode', code: 'E_REQUIRED' }));
  });

  it('refuses too many name options and duplicated ones', async () => {
    const tooMany = await refusedWith('LLC', (body) => {
      body.nameOptions = ['A One LLC', 'A Two LLC', 'A Three LLC', 'A Four LLC'];
    });
    expect(tooMany.details).toContainEqual(expect.objectContaining({ field: '/nameOptions', code: 'E_TOO_MANY_ITEMS' }));
    const duplicated = await refusedWith('LLC', (body) => {
      body.nameOptions = ['A One LLC', 'A One LLC'];
    });
    expect(duplicated.details).toContainEqual(expect.objectContaining({ field: '/nameOptions', code: 'E_DUPLICATE_ITEMS' }));
  });

  it('refuses an ownership share out of bounds (E_OUT_OF_RANGE)', async () => {
    const error = await refusedWith('LLC', (body) => {
      (body.members[0] as { ownershipPercent: number }).ownershipPercent = 160;
    });
    expect(error.details).toContainEqual(expect.objectContaining({ field: '/members/0/ownershipPercent', code: 'E_OUT_OF_RANGE' }));
  });
});

describe('getCompany', () => {
  it('returns the company as accepted, and the customer lists it', async () => {
    const company = await newCompany('CCorp');
    const { payload } = await api.getCompany({ companyId: company.serviceCompanyId });
    expect(payload).toEqual(company);
    const customer = (await api.getCustomer({ customerId: company.serviceCustomerId })).payload;
    expect(customer.companies).toEqual([
      { serviceCompanyId: company.serviceCompanyId, name: company.name, entityType: 'CCorp', state: company.state, status: 'PENDING' },
    ]);
  });

  it('answers 404 E_NOT_FOUND for an id no one has, and 400 for one that is not a company id', async () => {
    const missing = await apiError(api.getCompany({ companyId: unknownId('com') }));
    expect([missing.status, missing.code]).toEqual([404, 'E_NOT_FOUND']);
    const malformed = await apiError(api.getCompany({ companyId: 'com_short' }));
    expect(malformed.status).toBe(400);
    expect(malformed.details).toContainEqual(expect.objectContaining({ in: 'path', field: '/companyId' }));
  });
});

describe('listCompanies', () => {
  it('lists newest first and filters by customer, status and entity type', async () => {
    const customer = await newCustomer();
    const llc = (await api.createCompany(llcRequest(customer.serviceCustomerId))).payload;
    const ccorp = (await api.createCompany(ccorpRequest(customer.serviceCustomerId))).payload;
    const mine = (await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId })).payload;
    expect(mine.data.map((company) => company.serviceCompanyId)).toEqual([ccorp.serviceCompanyId, llc.serviceCompanyId]);
    const ccorps = (await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId, entityType: 'CCorp' })).payload;
    expect(ccorps.data.map((company) => company.serviceCompanyId)).toEqual([ccorp.serviceCompanyId]);
    const completed = (await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId, status: 'COMPLETED' })).payload;
    expect(completed.data).toEqual([]);
  });

  it('pages with limit and cursor', async () => {
    const customer = await newCustomer();
    for (let i = 0; i < 3; i++) await api.createCompany(llcRequest(customer.serviceCustomerId));
    const first = (await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId, limit: 2 })).payload;
    expect(first.data).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = (
      await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId, limit: 2, cursor: first.nextCursor ?? undefined })
    ).payload;
    expect(second.data).toHaveLength(1);
    expect(second.hasMore).toBe(false);
    expect(second.nextCursor).toBeNull();
  });

  it('refuses a status that is not one', async () => {
    const error = await apiError(api.listCompanies({ status: 'DONE' as never }));
    expect(error.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/status', code: 'E_NOT_ALLOWED_VALUE' }));
  });
});
