/**
 * listCountries, listStates, listNaicsCodes, listFilingFees: every list walked to its end through `nextCursor`,
 * in code order, with the page-size bounds and forged cursors refused.
 */
import { describe, expect, it } from 'vitest';
import { paginate, type PartnerResult } from '../client/index.ts';
import { api, apiError } from './support/fixtures.ts';

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

describe('listCountries', () => {
  it('walks to the end with limit=100, in code order, ISO 3166-1 alpha-3', async () => {
    const { items, pages } = await walk((cursor) => api.listCountries({ limit: 100, cursor }), 100);
    expect(pages).toBeGreaterThan(1);
    expectAscendingUnique(items.map((country) => country.code));
    expect(items.map((country) => country.code)).toEqual(expect.arrayContaining(['USA', 'DEU', 'GBR']));
    expect(items.length).toBeGreaterThan(240);
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

  it('refuses a forged cursor with E_CURSOR_INVALID', async () => {
    const error = await apiError(api.listCountries({ cursor: 'eyJvIjoyMH0' }));
    expect(error.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID' }));
  });
});

describe('listStates', () => {
  it('lists the 50 states and DC, in code order', async () => {
    const { items } = await walk((cursor) => api.listStates({ limit: 20, cursor }), 20);
    const codes = items.map((state) => state.code);
    expectAscendingUnique(codes);
    expect(codes).toHaveLength(51);
    expect(codes).toEqual(expect.arrayContaining(['DE', 'WY', 'DC']));
  });

  it('refuses limit=101', async () => {
    const error = await apiError(api.listStates({ limit: 101 }));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
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
    expect(byPrefix.items.every((industry) => industry.code.startsWith('5415'))).toBe(true);
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
  });

  it('refuses a cursor issued for other filters', async () => {
    const { payload } = await api.listFilingFees({ limit: 1 });
    const error = await apiError(api.listFilingFees({ state: 'DE', cursor: payload.nextCursor ?? undefined }));
    expect(error.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ field: '/cursor', code: 'E_CURSOR_INVALID' }));
  });
});
