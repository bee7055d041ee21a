/** The rules checked on submission that JSON Schema cannot express, each with its field-level code and pointer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CCorpFormationRequest, LlcFormationRequest } from '../../../generated/openapi.js';
import { ccorpBody, createCustomer, customerBody, llcBody, newIdempotencyKey, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let customerId: string;

beforeAll(async () => {
  mock = await startTestMock();
  customerId = (await createCustomer(mock)).serviceCustomerId;
});
afterAll(() => closeCheckingJournal(mock));

const submit = (body: unknown) => mock.call('/v1/partner/companies', { body, idempotencyKey: newIdempotencyKey() });

async function expectOnly(body: unknown, field: string, code: string): Promise<void> {
  expect(validationDetails(await submit(body))).toEqual([{ in: 'body', field, code, message: expect.any(String) }]);
}

async function expectAccepted(body: LlcFormationRequest | CCorpFormationRequest): Promise<void> {
  const response = await submit(body);
  expect(response.status, JSON.stringify(response.json)).toBe(202);
  expect(response.json.payload.status).toBe('PENDING');
}

const llc = (change: (body: LlcFormationRequest) => void = () => undefined) => {
  const body = llcBody(customerId);
  change(body);
  return body;
};
const ccorp = (change: (body: CCorpFormationRequest) => void = () => undefined) => {
  const body = ccorpBody(customerId);
  change(body);
  return body;
};
const member = (email: string, ownershipPercent: number) => ({ firstName: 'Ada', lastName: 'Lovelace', email, ownershipPercent });
const officer = (email: string, roles: CCorpFormationRequest['executiveMembers'][number]['roles']) => ({ firstName: 'Grace', lastName: 'Hopper', email, roles });

describe('the examples of the contract', () => {
  it('are accepted, for an LLC and a CCorp', async () => {
    await expectAccepted(llc());
    await expectAccepted(ccorp());
  });
});

describe('each rule, in its own request', () => {
  it('E_CUSTOMER_NOT_FOUND at /serviceCustomerId', async () => {
    await expectOnly(llcBody('cus_000000000000000000000000'), '/serviceCustomerId', 'E_CUSTOMER_NOT_FOUND');
  });

  it('E_STATE_UNKNOWN at /state for PR', async () => {
    await expectOnly(llc((body) => (body.state = 'PR' as never)), '/state', 'E_STATE_UNKNOWN');
  });

  it('E_NAICS_CODE_UNKNOWN at /naicsCode for 999999', async () => {
    await expectOnly(llc((body) => (body.naicsCode = '999999')), '/naicsCode', 'E_NAICS_CODE_UNKNOWN');
  });

  it('E_COUNTRY_UNKNOWN at /businessAddress/country for XKX', async () => {
    await expectOnly(llc((body) => (body.businessAddress.country = 'XKX')), '/businessAddress/country', 'E_COUNTRY_UNKNOWN');
  });

  it('E_COUNTRY_UNKNOWN at /mailingAddress/country', async () => {
    await expectOnly(llc((body) => (body.mailingAddress.country = 'XXX')), '/mailingAddress/country', 'E_COUNTRY_UNKNOWN');
  });

  it('E_ENTITY_SUFFIX_MISMATCH at /nameOptions/1 for "Acme Inc." on an LLC', async () => {
    await expectOnly(llc((body) => (body.nameOptions = ['Acme LLC', 'Acme Inc.'])), '/nameOptions/1', 'E_ENTITY_SUFFIX_MISMATCH');
  });

  it('E_ENTITY_SUFFIX_MISMATCH at /nameOptions/0 for an LLC name on a CCorp', async () => {
    await expectOnly(ccorp((body) => (body.nameOptions = ['Hopper Compilers LLC'])), '/nameOptions/0', 'E_ENTITY_SUFFIX_MISMATCH');
  });

  it('E_ENTITY_SUFFIX_MISMATCH for a suffix without the space before it', async () => {
    await expectOnly(llc((body) => (body.nameOptions = ['AcmeLLC'])), '/nameOptions/0', 'E_ENTITY_SUFFIX_MISMATCH');
  });

  it('E_OWNERSHIP_TOTAL_INVALID at /members for 60 + 30', async () => {
    await expectOnly(llc((body) => (body.members = [member('a@example.com', 60), member('b@example.com', 30)])), '/members', 'E_OWNERSHIP_TOTAL_INVALID');
  });

  it('E_OWNERSHIP_TOTAL_INVALID at /members for 60 + 40.01', async () => {
    await expectOnly(llc((body) => (body.members = [member('a@example.com', 60), member('b@example.com', 40.01)])), '/members', 'E_OWNERSHIP_TOTAL_INVALID');
  });

  it('E_OFFICER_ROLE_MISSING at /executiveMembers when no one is TREASURER', async () => {
    await expectOnly(
      ccorp((body) => (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'DIRECTOR']), officer('j@example.com', ['SECRETARY'])])),
      '/executiveMembers',
      'E_OFFICER_ROLE_MISSING',
    );
  });

  it('E_OFFICER_ROLE_DUPLICATED at /executiveMembers/2/roles for a second PRESIDENT', async () => {
    await expectOnly(
      ccorp(
        (body) =>
          (body.executiveMembers = [
            officer('g@example.com', ['PRESIDENT', 'DIRECTOR']),
            officer('j@example.com', ['SECRETARY', 'TREASURER']),
            officer('k@example.com', ['PRESIDENT']),
          ]),
      ),
      '/executiveMembers/2/roles',
      'E_OFFICER_ROLE_DUPLICATED',
    );
  });

  it('E_COUNTRY_UNKNOWN at /countryOfResidence for a customer from XXX', async () => {
    const response = await mock.call('/v1/partner/customers', { body: customerBody({ countryOfResidence: 'XXX' }), idempotencyKey: newIdempotencyKey() });
    expect(validationDetails(response)).toEqual([{ in: 'body', field: '/countryOfResidence', code: 'E_COUNTRY_UNKNOWN', message: expect.any(String) }]);
  });
});

describe('what the rules allow', () => {
  it('33.33 + 33.33 + 33.34 totals exactly 100', async () => {
    await expectAccepted(llc((body) => (body.members = [member('a@example.com', 33.33), member('b@example.com', 33.33), member('c@example.com', 33.34)])));
  });

  it('one member owning 100', async () => {
    await expectAccepted(llc((body) => (body.members = [member('a@example.com', 100)])));
  });

  it('each allowed suffix, ignoring case', async () => {
    await expectAccepted(llc((body) => (body.nameOptions = ['Acme llc', 'Acme L.L.C.', 'Acme Limited Liability Company'])));
    await expectAccepted(ccorp((body) => (body.nameOptions = ['Hopper inc', 'Hopper Incorporated', 'Hopper Corp.'])));
    await expectAccepted(ccorp((body) => (body.nameOptions = ['Hopper Corp', 'Hopper CORPORATION', 'Hopper Inc.'])));
  });

  it('DIRECTOR held by several members, and every role held by one member', async () => {
    await expectAccepted(ccorp((body) => (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'DIRECTOR']), officer('j@example.com', ['SECRETARY', 'TREASURER', 'DIRECTOR'])])));
    await expectAccepted(ccorp((body) => (body.executiveMembers = [officer('g@example.com', ['PRESIDENT', 'SECRETARY', 'TREASURER', 'DIRECTOR'])])));
  });

  it('every state of listStates, including DC', async () => {
    await expectAccepted(llc((body) => (body.state = 'DC')));
    await expectAccepted(llc((body) => (body.state = 'WY')));
  });
});

describe('a request that breaks several rules', () => {
  it('lists every problem in one answer, and creates nothing', async () => {
    const other = await createCustomer(mock);
    const body = llcBody(other.serviceCustomerId, {
      state: 'PR' as never,
      naicsCode: '999999',
      nameOptions: ['Acme Inc.'],
      members: [member('a@example.com', 50)],
    });
    body.businessAddress.country = 'XKX';
    const details = validationDetails(await submit(body));
    expect(details.map(({ field, code }) => ({ field, code }))).toEqual(
      expect.arrayContaining([
        { field: '/state', code: 'E_STATE_UNKNOWN' },
        { field: '/naicsCode', code: 'E_NAICS_CODE_UNKNOWN' },
        { field: '/businessAddress/country', code: 'E_COUNTRY_UNKNOWN' },
        { field: '/nameOptions/0', code: 'E_ENTITY_SUFFIX_MISMATCH' },
        { field: '/members', code: 'E_OWNERSHIP_TOTAL_INVALID' },
      ]),
    );
    expect(details).toHaveLength(5);
    const companies = await mock.call(`/v1/partner/companies?serviceCustomerId=${other.serviceCustomerId}`);
    expect(companies.json.payload.data).toEqual([]);
  });

  it('is checked against the schema first: a schema error stops before the rules', async () => {
    const details = validationDetails(await submit(llc((body) => ((body as { state: string }).state = 'pr'))));
    expect(details.map(({ field, code }) => ({ field, code }))).toEqual([{ field: '/state', code: 'E_PATTERN' }]);
  });
});
