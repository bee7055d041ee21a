/**
 * createCompany, getCompany, listCompanies: both entity types accepted from the contract's examples (LLC by
 * default, each checked against its own variant), every rule of *Rules checked on submission* (read from the
 * Companies tag) refused with its field-level code alone, what the rules allow accepted, several broken rules
 * listed in one answer that creates nothing, schema errors first, and the parameters' own codes.
 */
import { describe, expect, it } from 'vitest';
import type { CCorpFormationRequest, FieldError, LlcFormationRequest } from '../generated/openapi.js';
import { api, apiError, ccorpRequest, llcRequest, newCompany, newCustomer, newIdempotencyKey, unknownId } from './support/fixtures.ts';
import { tagTable } from './support/contract.ts';
import { rawRequest } from './support/observe.ts';

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

  it('checks a body without entityType as an LLC: CCorp-only properties are unknown to it', async () => {
    const customer = await newCustomer();
    const { entityType: _entityType, ...withoutType } = ccorpRequest(customer.serviceCustomerId);
    const error = await apiError(api.createCompany(withoutType as never));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'body', field: '/members', code: 'E_REQUIRED' }),
        expect.objectContaining({ in: 'body', field: '/executiveMembers', code: 'E_UNKNOWN_FIELD' }),
        expect.objectContaining({ in: 'body', field: '/shareStructure', code: 'E_UNKNOWN_FIELD' }),
      ]),
    );
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

/** One customer of the run, for the scenarios that need no customer of their own. */
let sharedCustomerId: string | undefined;
async function customerId(): Promise<string> {
  sharedCustomerId ??= (await newCustomer()).serviceCustomerId;
  return sharedCustomerId;
}

/** The example of this entity type, for the customer, changed by `change`. */
function formation(entityType: 'LLC' | 'CCorp', serviceCustomerId: string, change: (body: FormationBody) => void = () => undefined): FormationBody {
  const body = (entityType === 'LLC' ? llcRequest(serviceCustomerId) : ccorpRequest(serviceCustomerId)) as FormationBody;
  change(body);
  return body;
}

async function refusedWith(entityType: 'LLC' | 'CCorp', breakIt: (body: FormationBody) => void) {
  const error = await apiError(api.createCompany(formation(entityType, await customerId(), breakIt) as LlcFormationRequest));
  expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  return error;
}

/** The body's only problem is at `field`, with `code`. */
async function refusedWithOnly(entityType: 'LLC' | 'CCorp', breakIt: (body: FormationBody) => void, field: string, code: FieldErrorCode) {
  const error = await refusedWith(entityType, breakIt);
  expect(error.details).toEqual([{ in: 'body', field, code, message: expect.any(String) }]);
}

async function acceptedWith(entityType: 'LLC' | 'CCorp', change: (body: FormationBody) => void): Promise<void> {
  const { payload, meta } = await api.createCompany(formation(entityType, await customerId(), change) as LlcFormationRequest);
  expect(meta.status).toBe(202);
  expect(payload.status).toBe('PENDING');
}

type Member = LlcFormationRequest['members'][number];
type Officer = CCorpFormationRequest['executiveMembers'][number];
const member = (email: string, ownershipPercent: number): Member => ({ firstName: 'Ada', lastName: 'Lovelace', email, ownershipPercent });
const officer = (email: string, roles: Officer['roles']): Officer => ({ firstName: 'Grace', lastName: 'Hopper', email, roles });

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

  it.each(rulesTable.map((row) => [row.code, row.rule] as const))('refuses %s (%s), the only detail of the answer', async (code) => {
    const scenario = ruleCases[code];
    if (!scenario) throw new Error(`No scenario for ${code}.`);
    await refusedWithOnly(scenario.entityType, scenario.breakIt, scenario.field, code);
  });

  // More ways to break the rules, each alone in its request.
  it.each([
    { label: 'PR, a territory', code: 'E_STATE_UNKNOWN', field: '/state', entityType: 'LLC', breakIt: (body: FormationBody) => void (body.state = 'PR') },
    {
      label: 'XKX, a code outside ISO 3166-1, in the business address',
      code: 'E_COUNTRY_UNKNOWN',
      field: '/businessAddress/country',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.businessAddress.country = 'XKX'),
    },
    {
      label: 'the mailing address',
      code: 'E_COUNTRY_UNKNOWN',
      field: '/mailingAddress/country',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.mailingAddress.country = 'XXX'),
    },
    {
      label: 'a CCorp suffix on an LLC',
      code: 'E_ENTITY_SUFFIX_MISMATCH',
      field: '/nameOptions/1',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.nameOptions = ['Acme LLC', 'Acme Inc.']),
    },
    {
      label: 'an LLC suffix on a CCorp',
      code: 'E_ENTITY_SUFFIX_MISMATCH',
      field: '/nameOptions/0',
      entityType: 'CCorp',
      breakIt: (body: FormationBody) => void (body.nameOptions = ['Hopper Compilers LLC']),
    },
    {
      label: 'a suffix without the space before it',
      code: 'E_ENTITY_SUFFIX_MISMATCH',
      field: '/nameOptions/0',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.nameOptions = ['AcmeLLC']),
    },
    {
      label: '60 + 30',
      code: 'E_OWNERSHIP_TOTAL_INVALID',
      field: '/members',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.members = [member('a@example.com', 60), member('b@example.com', 30)]),
    },
    {
      label: '60 + 40.01',
      code: 'E_OWNERSHIP_TOTAL_INVALID',
      field: '/members',
      entityType: 'LLC',
      breakIt: (body: FormationBody) => void (body.members = [member('a@example.com', 60), member('b@example.com', 40.01)]),
    },
    {
      label: 'no TREASURER among two officers',
      code: 'E_OFFICER_ROLE_MISSING',
      field: '/executiveMembers',
      entityType: 'CCorp',
      breakIt: (body: FormationBody) =>
        void (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'DIRECTOR']), officer('j@example.com', ['SECRETARY'])]),
    },
    {
      label: 'a second PRESIDENT, third of three officers',
      code: 'E_OFFICER_ROLE_DUPLICATED',
      field: '/executiveMembers/2/roles',
      entityType: 'CCorp',
      breakIt: (body: FormationBody) =>
        void (body.executiveMembers = [
          officer('g@example.com', ['PRESIDENT', 'DIRECTOR']),
          officer('j@example.com', ['SECRETARY', 'TREASURER']),
          officer('k@example.com', ['PRESIDENT']),
        ]),
    },
  ] as const)('refuses $code at $field for $label, the only detail of the answer', async ({ entityType, breakIt, field, code }) => {
    await refusedWithOnly(entityType, breakIt, field, code);
  });

  it('lists every broken rule in one answer, and creates nothing', async () => {
    const customer = await newCustomer();
    const body = formation('LLC', customer.serviceCustomerId, (broken) => {
      broken.state = 'ZZ';
      broken.naicsCode = '999999';
      broken.nameOptions = ['Acme Inc.'];
      broken.members = [member('a@example.com', 50)];
      broken.businessAddress.country = 'ZZZ';
    });
    const error = await apiError(api.createCompany(body as LlcFormationRequest));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details.map(({ in: where, field, code }) => ({ in: where, field, code }))).toEqual(
      expect.arrayContaining([
        { in: 'body', field: '/state', code: 'E_STATE_UNKNOWN' },
        { in: 'body', field: '/naicsCode', code: 'E_NAICS_CODE_UNKNOWN' },
        { in: 'body', field: '/businessAddress/country', code: 'E_COUNTRY_UNKNOWN' },
        { in: 'body', field: '/nameOptions/0', code: 'E_ENTITY_SUFFIX_MISMATCH' },
        { in: 'body', field: '/members', code: 'E_OWNERSHIP_TOTAL_INVALID' },
      ]),
    );
    expect(error.details).toHaveLength(5);
    expect((await api.listCompanies({ serviceCustomerId: customer.serviceCustomerId })).payload.data).toEqual([]);
  });

  it('checks the schema first: a body with a schema error gets only that, not the rules it also breaks', async () => {
    // `pr` breaks the state's pattern; as a state it would be unknown too, but the rules are not looked at.
    const error = await refusedWith('LLC', (body) => void (body.state = 'pr'));
    expect(error.details.map(({ field, code }) => ({ field, code }))).toEqual([{ field: '/state', code: 'E_PATTERN' }]);
  });
});

describe('what the rules allow', () => {
  it('ownership of 33.33 + 33.33 + 33.34, which totals exactly 100', async () => {
    await acceptedWith('LLC', (body) => void (body.members = [member('a@example.com', 33.33), member('b@example.com', 33.33), member('c@example.com', 33.34)]));
  });

  it('one member owning 100', async () => {
    await acceptedWith('LLC', (body) => void (body.members = [member('a@example.com', 100)]));
  });

  it('each allowed suffix, in any case', async () => {
    await acceptedWith('LLC', (body) => void (body.nameOptions = ['Acme llc', 'Acme L.L.C.', 'Acme Limited Liability Company']));
    await acceptedWith('CCorp', (body) => void (body.nameOptions = ['Hopper inc', 'Hopper Incorporated', 'Hopper Corp.']));
    await acceptedWith('CCorp', (body) => void (body.nameOptions = ['Hopper Corp', 'Hopper CORPORATION', 'Hopper Inc.']));
  });

  it('DIRECTOR held by several officers, and every role held by one officer', async () => {
    await acceptedWith(
      'CCorp',
      (body) => void (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'DIRECTOR']), officer('j@example.com', ['SECRETARY', 'TREASURER', 'DIRECTOR'])]),
    );
    await acceptedWith('CCorp', (body) => void (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'SECRETARY', 'TREASURER', 'DIRECTOR'])]));
  });

  it('states of listStates, DC included', async () => {
    await acceptedWith('LLC', (body) => void (body.state = 'DC'));
    await acceptedWith('LLC', (body) => void (body.state = 'WY'));
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
    // Alone, it is the only detail, at its full pointer.
    await refusedWithOnly('LLC', (body) => void Object.assign(body.businessAddress, { county: 'New Castle' }), '/businessAddress/county', 'E_UNKNOWN_FIELD');
  });

  it('refuses a body that is not an object (E_TYPE at the root)', async () => {
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/companies',
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body: '"LLC"',
    });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_TYPE' }));
  });

  it('refuses an entityType that is neither LLC nor CCorp (E_NOT_ALLOWED_VALUE)', async () => {
    await refusedWithOnly('LLC', (body) => void (body.entityType = 'Partnership'), '/entityType', 'E_NOT_ALLOWED_VALUE');
  });

  it('checks a CCorp against the CCorp variant only', async () => {
    await refusedWithOnly(
      'CCorp',
      (body) => void (body.shareStructure = { ...body.shareStructure, authorizedShares: 0 }),
      '/shareStructure/authorizedShares',
      'E_OUT_OF_RANGE',
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

  it.each([101, 160])('refuses an ownership share of %s (E_OUT_OF_RANGE), pointing into the array', async (ownershipPercent) => {
    const error = await refusedWith('LLC', (body) => {
      body.members = [{ ...(body.members[0] as Member), ownershipPercent }];
    });
    expect(error.details).toContainEqual({ in: 'body', field: '/members/0/ownershipPercent', code: 'E_OUT_OF_RANGE', message: expect.any(String) });
    expect(error.details.every((detail) => detail.field.startsWith('/members/0/'))).toBe(true);
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
    // An id of another kind (a customer's) is refused by its pattern, not looked up.
    const otherKind = await apiError(api.getCompany({ companyId: await customerId() }));
    expect(otherKind.details).toEqual([{ in: 'path', field: '/companyId', code: 'E_PATTERN', message: expect.any(String) }]);
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
    expect(error.details).toEqual([{ in: 'query', field: '/status', code: 'E_NOT_ALLOWED_VALUE', message: expect.any(String) }]);
  });

  it('refuses a filter it does not have rather than list everything (customerId is not serviceCustomerId)', async () => {
    const error = await apiError(api.listCompanies({ customerId: unknownId('cus') } as never));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details).toEqual([{ in: 'query', field: '/customerId', code: 'E_UNKNOWN_FIELD', message: expect.any(String) }]);
  });
});
