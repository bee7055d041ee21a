/** A refused simulation must leave the automatic timeline of the formation alone. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { createCompany, createCustomer, llcBody } from '../support/http-fixtures.ts';
import { otherSandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
const stepDelayMs = 150;

beforeAll(async () => {
  mock = await startTestMock({ formationTimeline: 'auto', formationStepDelayMs: stepDelayMs });
});

afterAll(() => closeCheckingJournal(mock));

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const companyOf = (id: string) => async () => (await mock.call(`/v1/partner/companies/${id}`)).json.payload;
const documentsOf = (id: string) => async () => (await mock.call(`/v1/partner/companies/${id}/documents`)).json.payload.data;

describe('the automatic timeline', () => {
  it("goes on after another partner's simulation of the company is refused with 404", async () => {
    const customer = await createCustomer(mock);
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId));
    const refused = await mock.call(`/v1/partner/sandbox/companies/${company.serviceCompanyId}/simulate-formation`, { key: otherSandboxKey, body: {} });
    expect(refused.status).toBe(404);
    const completed = await waitFor(companyOf(company.serviceCompanyId), (c) => c.ein !== null);
    expect(completed.status).toBe('COMPLETED');
    expect(await waitFor(documentsOf(company.serviceCompanyId), (docs) => docs.length === 3)).toHaveLength(3);
  });

  it('goes on after a simulation of a completed formation is refused with 409, before its EIN', async () => {
    const customer = await createCustomer(mock);
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId));
    await waitFor(companyOf(company.serviceCompanyId), (c) => c.status === 'COMPLETED');
    const refused = await mock.call(`/v1/partner/sandbox/companies/${company.serviceCompanyId}/simulate-formation`, { body: {} });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('E_FORMATION_ALREADY_FINAL');
    expect((await waitFor(companyOf(company.serviceCompanyId), (c) => c.ein !== null)).ein).toMatch(/^\d{2}-\d{7}$/);
    expect(await waitFor(documentsOf(company.serviceCompanyId), (docs) => docs.length === 3)).toHaveLength(3);
  });
});
