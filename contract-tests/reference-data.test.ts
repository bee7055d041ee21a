/**
 * listCountries, listStates, listNaicsCodes, listFilingFees: every list walked to its end through `nextCursor`,
 * in code order, the same whatever the page size, with the searches and filters, the page-size bounds, and
 * cursors forged, altered or used with other filters or on another list refused.
 */
import { describe, expect, it } from 'vitest';
import { paginate, type PartnerResult } from '../client/index.ts';
import type { EntityType } from '../generated/openapi.js';
import { contractDocument } from './support/contract.ts';
import { api, apiError } from './support/fixtures.ts';
import { rawRequest } from './support/observe.ts';

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Walks every page by hand, checking each page's own promises on the way. */
async function walk<T>(
  fetchPage: (cursor: string | undefined) => Promise<PartnerResult<Page<T>>>,
  limit: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const { payload } = await fetchPage(cursor);
    expect(payload.data.length).toBeLessThanOrEqual(limit);
    items.push(...payload.data);
    if (!payload.hasMore) {
      expect(payload.nextCursor).toBeNull();
      return { items, pages };
    }
    expect(payload.data.length).toBe(limit);
    expect(payload.nextCursor).toEqual(expect.any(String));
    cursor = payload.nextCursor as string;
    expect(pages, 'the list never ends').toBeLessThan(1_000);
  }
}

function expectAscendingUnique(codes: string[]): void {
  expect(new Set(codes).size).toBe(codes.length);
  expect(codes).toEqual([...codes].sort());
}

/** The one detail of a 400 that refuses the cursor, and nothing else. */
async function expectCursorRefused(call: Promise<unknown>): Promise<void> {
  const error = await apiError(call);
  expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  expect(error.details).toEqual([{ in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID', message: expect.any(String) }]);
}

describe('listCountries', () => {
  it('walks to the end with limit=100, in code order, ISO 3166-1 alpha-3', async () => {
    const { items, pages } = await walk((cursor) => api.listCountries({ limit: 100, cursor }), 100);
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBe(Math.ceil(items.length / 100));
    expectAscendingUnique(items.map((country) => country.code));
    expect(items.map((country) => country.code)).toEqual(expect.arrayContaining(['USA', 'DEU', 'GBR']));
    // ISO 3166-1 assigns about 249 codes; XKX (Kosovo) is a user-assigned code, not one of them.
    expect(items.length).toBeGreaterThanOrEqual(245);
    expect(items.length).toBeLessThanOrEqual(252);
    expect(items.find((country) => country.code === 'USA')).toMatchObject({ alpha2: 'US' });
    expect(items.map((country) => country.code)).not.toContain('XKX');
  });

  it('gives the same items through the client paginate() as page by page', async () => {
    const codes: string[] = [];
    for await (const country of paginate(api.listCountries, { limit: 100 })) codes.push(country.code);
    const { items } = await walk((cursor) => api.listCountries({ limit: 100, cursor }), 100);
    expect(codes).toEqual(items.map((country) => country.code));
  });

  it('uses the default page size of 20 when no limit is given', async () => {
    const { payload } = await api.listCountries();
    expect(payload.data).toHaveLength(20);
    expect(payload.hasMore).toBe(true);
  });

  it.each([0, 101])('refuses limit=%i with a field error on /limit', async (limit) => {
    const error = await apiError(api.listCountries({ limit }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('E_VALIDATION_FAILED');
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/limit' }));
  });

  it('refuses a forged cursor with E_CURSOR_INVALID at /cursor in the query', async () => {
    for (const forged of ['eyJvIjoyMH0', 'AAAAAAAAAAAAAAAAAAAAAAAA', 'abc']) await expectCursorRefused(api.listCountries({ cursor: forged }));
  });

  it('refuses a cursor whose bytes were altered', async () => {
    const cursor = (await api.listCountries({ limit: 5 })).payload.nextCursor as string;
    const altered = `${cursor.slice(0, -2)}${cursor.slice(-2) === 'AA' ? 'BB' : 'AA'}`;
    await expectCursorRefused(api.listCountries({ limit: 5, cursor: altered }));
  });
});

describe('listStates', () => {
  it('lists the 50 states and DC, in code order', async () => {
    const { items } = await walk((cursor) => api.listStates({ limit: 20, cursor }), 20);
    const codes = items.map((state) => state.code);
    expectAscendingUnique(codes);
    expect(codes).toHaveLength(51);
    expect(codes).toEqual(expect.arrayContaining(['DE', 'WY', 'DC']));
    expect(items.find((state) => state.code === 'DC')).toMatchObject({ type: 'DISTRICT' });
    expect(items.filter((state) => state.type === 'STATE')).toHaveLength(50);
    // Territories are not states of formation.
    expect(codes).not.toContain('PR');
  });

  it('gives the same list by pages of 7, in 8 pages', async () => {
    const whole = await walk((cursor) => api.listStates({ limit: 100, cursor }), 100);
    const paged = await walk((cursor) => api.listStates({ limit: 7, cursor }), 7);
    expect(paged.pages).toBe(8);
    expect(paged.items).toEqual(whole.items);
  });

  it('takes a cursor with another limit: the page goes on where the last one ended', async () => {
    const first = (await api.listStates({ limit: 10 })).payload;
    const next = (await api.listStates({ limit: 3, cursor: first.nextCursor as string })).payload;
    const whole = (await walk((cursor) => api.listStates({ limit: 100, cursor }), 100)).items;
    expect(next.data.map((state) => state.code)).toEqual(whole.slice(10, 13).map((state) => state.code));
  });

  it('refuses limit=101', async () => {
    const error = await apiError(api.listStates({ limit: 101 }));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  });

  it.each(['abc', '1.5'])('refuses limit=%s, which is not an integer (E_TYPE at /limit)', async (limit) => {
    const response = await rawRequest({ method: 'GET', path: `/v1/partner/reference/states?limit=${limit}` });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/limit', code: 'E_TYPE' }));
  });

  it('refuses a query parameter given twice (E_PARAMETER_REPEATED), rather than guess which one counts', async () => {
    const response = await rawRequest({ method: 'GET', path: '/v1/partner/reference/states?limit=1&limit=100' });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toEqual([{ in: 'query', field: '/limit', code: 'E_PARAMETER_REPEATED', message: expect.any(String) }]);
  });

  it.each([
    ['a value whose escape is not UTF-8', 'limit=%FF', '/limit'],
    ['a value with a lone %', 'limit=1%', '/limit'],
    ['a name whose escape is not UTF-8', '%FF=1', '/%FF'],
    ['a value cut inside a character', 'cursor=%E0%A4', '/cursor'],
  ])('refuses %s (E_FORMAT), never reading it as U+FFFD', async (_what, query, field) => {
    const response = await rawRequest({ method: 'GET', path: `/v1/partner/reference/states?${query}` });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toEqual([{ in: 'query', field, code: 'E_FORMAT', message: expect.any(String) }]);
  });
});

describe('listNaicsCodes', () => {
  it('walks every six-digit industry with limit=100, in code order', async () => {
    const { items } = await walk((cursor) => api.listNaicsCodes({ limit: 100, cursor }), 100);
    const codes = items.map((industry) => industry.code);
    expectAscendingUnique(codes);
    expect(codes.every((code) => /^\d{6}$/.test(code))).toBe(true);
    // The codes the contract's own examples use.
    expect(codes).toEqual(expect.arrayContaining(['541511', '541715']));
  });

  it('searches by title words and by code prefix', async () => {
    const byWords = await walk((cursor) => api.listNaicsCodes({ q: 'software', limit: 100, cursor }), 100);
    expect(byWords.items.length).toBeGreaterThan(0);
    expect(byWords.items.every((industry) => /software/i.test(industry.title))).toBe(true);
    // NAICS 2022, as the contract promises: Software Publishers is 513210 (511210 until the 2017 edition).
    expect(byWords.items).toContainEqual({ code: '513210', title: 'Software Publishers' });
    expect(byWords.items.map((industry) => industry.code)).not.toContain('511210');
    const byPrefix = await walk((cursor) => api.listNaicsCodes({ q: '5415', limit: 100, cursor }), 100);
    expect(byPrefix.items.map((industry) => industry.code)).toContain('541511');
    for (const industry of byPrefix.items) expect(industry.code).toMatch(/^5415\d{2}$/);
  });

  it('finds nothing for words no title has', async () => {
    expect((await api.listNaicsCodes({ q: 'xylophonic' })).payload).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it('refuses a cursor used with another search, without one, or on another list; takes it with the same search', async () => {
    const cursor = (await api.listNaicsCodes({ q: 'manufacturing', limit: 2 })).payload.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const issued = cursor as string;
    expect((await api.listNaicsCodes({ q: 'manufacturing', limit: 2, cursor: issued })).meta.status).toBe(200);
    await expectCursorRefused(api.listNaicsCodes({ q: 'mining', limit: 2, cursor: issued }));
    await expectCursorRefused(api.listNaicsCodes({ limit: 2, cursor: issued }));
    await expectCursorRefused(api.listCountries({ limit: 2, cursor: issued }));
  });

  it('refuses a query parameter it does not take, rather than ignore it', async () => {
    const error = await apiError(api.listNaicsCodes({ search: 'software' } as never));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/search', code: 'E_UNKNOWN_FIELD' }));
  });

  it('refuses limit=0', async () => {
    const error = await apiError(api.listNaicsCodes({ limit: 0 }));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  });
});

describe('listFilingFees', () => {
  it('walks every state and entity type, in cents of USD', async () => {
    const { items } = await walk((cursor) => api.listFilingFees({ limit: 100, cursor }), 100);
    expect(items.length).toBe(102);
    expect(new Set(items.map((fee) => `${fee.state} ${fee.entityType}`)).size).toBe(items.length);
    expect(items.every((fee) => fee.currency === 'USD' && Number.isInteger(fee.amountCents))).toBe(true);
  });

  it('filters by state and entity type', async () => {
    const { payload } = await api.listFilingFees({ state: 'DE', entityType: 'LLC' });
    expect(payload.data).toEqual([expect.objectContaining({ state: 'DE', entityType: 'LLC' })]);
    expect((await api.listFilingFees({ state: 'WY', entityType: 'CCorp' })).payload.data).toHaveLength(1);
    // One per state and DC.
    expect((await walk((cursor) => api.listFilingFees({ entityType: 'LLC', limit: 100, cursor }), 100)).items).toHaveLength(51);
  });

  it("gives a state's two fees, by entity type in the contract's order", async () => {
    const entityTypes = (contractDocument.components.schemas?.EntityType as { enum: EntityType[] }).enum;
    const { payload } = await api.listFilingFees({ state: 'DE' });
    expect(payload.data.map((fee) => fee.entityType)).toEqual(entityTypes);
    for (const fee of payload.data) {
      expect(fee).toMatchObject({ state: 'DE', currency: 'USD' });
      expect(Number.isInteger(fee.amountCents)).toBe(true);
    }
    expect(payload.hasMore).toBe(false);
  });

  it('refuses a cursor issued for other filters', async () => {
    const { payload } = await api.listFilingFees({ limit: 1 });
    const error = await apiError(api.listFilingFees({ state: 'DE', cursor: payload.nextCursor ?? undefined }));
    expect(error.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ field: '/cursor', code: 'E_CURSOR_INVALID' }));
  });
});
