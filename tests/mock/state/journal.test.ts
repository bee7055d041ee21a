/**
 * The request journal is bounded in bytes, not only in entries (a caller's long path is cut), and read a page at a
 * time: following `nextCursor` walks every entry once, and no page holds more than 1000.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxJournalPathLength, type JournalEntry } from '../../../mock/journal/request-journal.ts';
import { journalOf } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock({ journalMaxBytes: 64 * 1024 });
});
afterAll(() => mock.close());

const page = async (query: string) => ((await (await fetch(`${mock.url}/_mock/requests?${query}`)).json()) as { payload: { data: JournalEntry[]; nextCursor: string | null } }).payload;

describe('the request journal', () => {
  it('cuts long paths and keeps within its byte budget, dropping the oldest entries', async () => {
    const long = `/v1/partner/customers/cus_${'x'.repeat(4000)}`;
    for (let n = 0; n < 120; n += 1) await mock.call(`${long}${n}`, { headers: { 'x-request-id': `req_long_${n}` } });
    const entries = await journalOf(mock);
    expect(entries.every((entry) => entry.path.length <= maxJournalPathLength)).toBe(true);
    expect(entries.length).toBeLessThan(120);
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.at(-1)?.requestId).toBe('req_long_119');
    expect(JSON.stringify(entries).length).toBeLessThan(64 * 1024);
  });

  it('walks every entry once by nextCursor, a page of at most 1000 at a time', async () => {
    for (let n = 0; n < 30; n += 1) await mock.call('/v1/partner/reference/states?limit=1', { headers: { 'x-request-id': `req_page_${n}` } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const next = await page(`limit=7&operationId=listStates${cursor ? `&cursor=${cursor}` : ''}`);
      expect(next.data.length).toBeLessThanOrEqual(7);
      seen.unshift(...next.data.map((entry) => entry.requestId));
      cursor = next.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, n) => `req_page_${n}`));
    expect((await fetch(`${mock.url}/_mock/requests?limit=5000`)).status).toBe(400);
    expect((await fetch(`${mock.url}/_mock/requests?cursor=abc`)).status).toBe(400);
  });
});
