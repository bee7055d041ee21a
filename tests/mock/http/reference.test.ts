/** Reference data over HTTP, and the pagination every list shares: limits, cursors and their refusals. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Country, Customer, NaicsIndustry } from '../../../generated/openapi.js';
import { createCustomer, validationDetails } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { otherSandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

interface PageOf<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Follows `nextCursor` to the end, checking each page's shape on the way. */
async function walk<T>(path: string, limit: number, key?: string): Promise<{ items: T[]; pages: PageOf<T>[] }> {
  const items: T[] = [];
  const pages: PageOf<T>[] = [];
  const separator = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  do {
    const response = await mock.call(`${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(response.status, JSON.stringify(response.json)).toBe(200);
    const page = response.json.payload as PageOf<T>;
    expect(page.data.length).toBeLessThanOrEqual(limit);
    if (page.hasMore) {
      expect(page.data).toHaveLength(limit);
      expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    } else {
      expect(page.nextCursor).toBeNull();
    }
    items.push(...page.data);
    pages.push(page);
    cursor = page.hasMore ? page.nextCursor : null;
    expect(pages.length).toBeLessThan(100);
  } while (cursor);
  return { items, pages };
}

describe('listCountries', () => {
  it('walks to the end with limit=100: about 249 distinct countries in code order, USA among them', async () => {
    const { items, pages } = await walk<Country>('/v1/partner/reference/countries', 100);
    expect(pages.length).toBe(Math.ceil(items.length / 100));
    const codes = items.map((country) => country.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.length).toBeGreaterThanOrEqual(245);
    expect(codes.length).toBeLessThanOrEqual(252);
    expect(codes).toEqual([...codes].sort());
    expect(items.find((country) => country.code === 'USA')).toMatchObject({ alpha2: 'US' });
    expect(codes).not.toContain('XKX');
  });

  it('pages by 20 when no limit is given', async () => {
    const page = (await mock.call('/v1/partner/reference/countries')).json.payload;
    expect(page.data).toHaveLength(20);
    expect(page.hasMore).toBe(true);
  });
});

describe('listStates', () => {
  it('lists the 50 states and DC', async () => {
    const { items } = await walk<{ code: string; type: string }>('/v1/partner/reference/states', 100);
    expect(items).toHaveLength(51);
    expect(items.find((state) => state.code === 'DC')).toMatchObject({ type: 'DISTRICT' });
    expect(items.filter((state) => state.type === 'STATE')).toHaveLength(50);
    expect(items.map((state) => state.code)).not.toContain('PR');
  });

  it('gives the same list by pages of 7', async () => {
    const whole = (await walk<{ code: string }>('/v1/partner/reference/states', 100)).items;
    const paged = await walk<{ code: string }>('/v1/partner/reference/states', 7);
    expect(paged.pages).toHaveLength(8);
    expect(paged.items).toEqual(whole);
  });
});

describe('listNaicsCodes', () => {
  it('finds industries by a word of their title', async () => {
    const { items } = await walk<NaicsIndustry>('/v1/partner/reference/naics-codes?q=software', 100);
    expect(items.length).toBeGreaterThan(0);
    for (const industry of items) expect(industry.title.toLowerCase()).toContain('software');
  });

  it('finds industries by a code prefix', async () => {
    const { items } = await walk<NaicsIndustry>('/v1/partner/reference/naics-codes?q=5415', 100);
    expect(items.length).toBeGreaterThan(0);
    for (const industry of items) expect(industry.code).toMatch(/^5415\d{2}$/);
    expect(items.map((industry) => industry.code)).toContain('541511');
  });

  it('finds nothing for words no title has', async () => {
    expect((await mock.call('/v1/partner/reference/naics-codes?q=xylophonic')).json.payload).toEqual({ data: [], hasMore: false, nextCursor: null });
  });
});

describe('listFilingFees', () => {
  it('gives the two fees of one state', async () => {
    const page = (await mock.call('/v1/partner/reference/filing-fees?state=DE')).json.payload;
    expect(page.data).toHaveLength(2);
    expect(page.data.map((fee: { entityType: string }) => fee.entityType)).toEqual(['LLC', 'CCorp']);
    for (const fee of page.data) {
      expect(fee).toMatchObject({ state: 'DE', currency: 'USD' });
      expect(Number.isInteger(fee.amountCents)).toBe(true);
    }
    expect(page.hasMore).toBe(false);
  });

  it('gives one fee for a state and an entity type, and 51 for an entity type', async () => {
    expect((await mock.call('/v1/partner/reference/filing-fees?state=WY&entityType=CCorp')).json.payload.data).toHaveLength(1);
    expect((await walk('/v1/partner/reference/filing-fees?entityType=LLC', 100)).items).toHaveLength(51);
  });
});

describe('cursors', () => {
  it('refuse a forged cursor with E_CURSOR_INVALID at /cursor in the query', async () => {
    for (const forged of ['eyJvIjoyMH0', 'AAAAAAAAAAAAAAAAAAAAAAAA', 'abc']) {
      expect(validationDetails(await mock.call(`/v1/partner/reference/countries?cursor=${forged}`))).toEqual([
        { in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID', message: expect.any(String) },
      ]);
    }
  });

  it('refuse a cursor whose bytes were altered', async () => {
    const cursor: string = (await mock.call('/v1/partner/reference/countries?limit=5')).json.payload.nextCursor;
    const altered = `${cursor.slice(0, -2)}${cursor.slice(-2) === 'AA' ? 'BB' : 'AA'}`;
    expect(validationDetails(await mock.call(`/v1/partner/reference/countries?limit=5&cursor=${altered}`))[0]?.code).toBe('E_CURSOR_INVALID');
  });

  it('refuse a cursor reused with another filter, or on another list', async () => {
    const cursor: string = (await mock.call('/v1/partner/reference/naics-codes?q=manufacturing&limit=2')).json.payload.nextCursor;
    expect(cursor).toBeTruthy();
    expect((await mock.call(`/v1/partner/reference/naics-codes?q=manufacturing&limit=2&cursor=${cursor}`)).status).toBe(200);
    expect(validationDetails(await mock.call(`/v1/partner/reference/naics-codes?q=mining&limit=2&cursor=${cursor}`))).toEqual([
      { in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID', message: expect.any(String) },
    ]);
    expect(validationDetails(await mock.call(`/v1/partner/reference/naics-codes?limit=2&cursor=${cursor}`))[0]?.code).toBe('E_CURSOR_INVALID');
    expect(validationDetails(await mock.call(`/v1/partner/reference/countries?limit=2&cursor=${cursor}`))[0]?.code).toBe('E_CURSOR_INVALID');
  });

  it('may be used with another limit', async () => {
    const first = (await mock.call('/v1/partner/reference/states?limit=10')).json.payload;
    const next = (await mock.call(`/v1/partner/reference/states?limit=3&cursor=${first.nextCursor}`)).json.payload;
    expect(next.data.map((state: { code: string }) => state.code)).toEqual(
      (await walk<{ code: string }>('/v1/partner/reference/states', 100)).items.slice(10, 13).map((state) => state.code),
    );
  });
});

describe('listCustomers', () => {
  it('pages newest first, across three pages, and each customer once', async () => {
    const key = otherSandboxKey;
    const created: Customer[] = [];
    for (let i = 0; i < 7; i += 1) created.push(await createCustomer(mock, { key }));
    const { items, pages } = await walk<Customer>('/v1/partner/customers', 3, key);
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 1]);
    expect(items.map((customer) => customer.serviceCustomerId)).toEqual(created.map((customer) => customer.serviceCustomerId).reverse());
    expect(items.every((customer) => customer.created === false)).toBe(true);
  });

  it('pages newly created customers after the cursor was issued without repeating or skipping any', async () => {
    const key = `dk_test_${'P4g1ng'.repeat(4)}`;
    const older = [await createCustomer(mock, { key }), await createCustomer(mock, { key }), await createCustomer(mock, { key })];
    const first = (await mock.call('/v1/partner/customers?limit=2', { key })).json.payload;
    await createCustomer(mock, { key });
    const second = (await mock.call(`/v1/partner/customers?limit=2&cursor=${first.nextCursor}`, { key })).json.payload;
    const seen = [...first.data, ...second.data].map((customer: Customer) => customer.serviceCustomerId);
    expect(seen).toEqual(older.map((customer) => customer.serviceCustomerId).reverse());
    expect(second.hasMore).toBe(false);
  });

  it('binds the cursor to the email filter', async () => {
    const key = otherSandboxKey;
    const cursor: string = (await mock.call('/v1/partner/customers?limit=1', { key })).json.payload.nextCursor;
    expect(validationDetails(await mock.call(`/v1/partner/customers?limit=1&email=ada%40example.com&cursor=${cursor}`, { key }))[0]?.code).toBe('E_CURSOR_INVALID');
  });
});
