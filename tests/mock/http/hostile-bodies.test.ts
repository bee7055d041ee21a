/**
 * Bodies made to cost the validator as much as they can: long arrays of broken items, more items than any limit,
 * a flood of unknown properties, deep nesting. Each is refused as any invalid body is, 400 E_VALIDATION_FAILED with
 * at most the contract's number of details and a message that says when there were more, never a 500. What each
 * costs is measured by `npm run bench:hostile-bodies` (BENCHMARKS.md), not here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { contract, createCustomer, customerBody, llcBody, newIdempotencyKey, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';

let mock: TestMock;
let customerId: string;
const maxDetails: number = contract.components.schemas.Error.properties.details.maxItems;

beforeAll(async () => {
  mock = await startTestMock();
  customerId = (await createCustomer(mock)).serviceCustomerId;
});
afterAll(() => closeCheckingJournal(mock));

const createCompany = (body: unknown) => mock.call('/v1/partner/companies', { body, idempotencyKey: newIdempotencyKey() });

describe('a body far past the contract\'s limits', () => {
  it('of 32,000 empty members is refused with the contract\'s number of details, and says there are more', async () => {
    const response = await createCompany(llcBody(customerId, { members: Array.from({ length: 32_000 }, () => ({})) as never }));
    const details = validationDetails(response);
    expect(details).toHaveLength(maxDetails);
    expect(details).toContainEqual(expect.objectContaining({ field: '/members', code: 'E_TOO_MANY_ITEMS' }));
    expect(response.json.error.message).toMatch(/there are more/);
  });

  it('of 130,000 name options is refused for the array, and for the items up to one past its limit', async () => {
    const details = validationDetails(await createCompany(llcBody(customerId, { nameOptions: Array(130_000).fill(1) as never })));
    const limit: number = contract.components.schemas.NameOptions.maxItems;
    expect(details.map((detail) => `${detail.field} ${detail.code}`)).toEqual([
      '/nameOptions E_TOO_MANY_ITEMS',
      ...Array.from({ length: limit + 1 }, (_, index) => `/nameOptions/${index} E_TYPE`),
    ]);
  });

  it('with 60,000 unknown properties is refused, its details bounded', async () => {
    const body: Record<string, unknown> = { ...customerBody() };
    for (let index = 0; index < 60_000; index += 1) body[`p${index}`] = 0;
    const response = await mock.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey() });
    const details = validationDetails(response);
    expect(details).toHaveLength(maxDetails);
    expect(details.every((detail) => detail.code === 'E_UNKNOWN_FIELD')).toBe(true);
    expect(response.json.error.message).toMatch(/there are more/);
  });

  it('nested 100,000 levels deep is refused at the level the contract describes', async () => {
    const rawBody = `{"email":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const response = await mock.call('/v1/partner/customers', { rawBody, idempotencyKey: newIdempotencyKey() });
    expect(validationDetails(response)).toContainEqual(expect.objectContaining({ field: '/email', code: 'E_TYPE' }));
  });

  it('leaves the mock answering every other request as before', async () => {
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBe(200);
  });
});
