/**
 * The journal feed: each write read once and handed to every follower it matches, in order; a follower whose client
 * does not take what it is given holds back nothing but itself, and its reading stops until its client reads.
 */
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createJournalFeed } from '../../../mock/journal/journal-feed.ts';
import { matchesFilters } from '../../../mock/journal/journal-records.ts';
import type { FeedEntry, RequestJournal } from '../../../mock/journal/request-journal.ts';

/** A journal in memory: `append` adds entries and tells the feed, as a write would. */
function fakeJournal() {
  const entries: FeedEntry[] = [];
  const listeners = new Set<() => void>();
  const reads: { after: number; filtered: boolean }[] = [];
  const journal = {
    newest: async () => entries.at(-1)?.position ?? -1,
    async since(position: number, filters: Parameters<RequestJournal['since']>[1], limit: number) {
      reads.push({ after: position, filtered: Object.keys(filters).length > 0 });
      const after = entries.filter((entry) => entry.position > position);
      const examined = after.slice(0, limit * 10);
      const found: FeedEntry[] = [];
      let last = position;
      for (const entry of examined) {
        if (found.length >= limit) return { entries: found, last, more: true };
        last = entry.position;
        if (matchesFilters(entry, filters)) found.push(entry);
      }
      return { entries: found, last, more: examined.length < after.length };
    },
    onWrite(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as RequestJournal;
  const append = (count: number, partnerId = 'p1') => {
    for (let index = 0; index < count; index += 1) {
      const position = entries.length;
      entries.push({ position, at: new Date(0).toISOString(), requestId: `req_${position}`, method: 'GET', path: '/v1/partner/customers', operationId: 'listCustomers', status: 200, durationMs: 1, partner: null, replayed: false, errorCode: null, partnerId });
    }
    for (const listener of listeners) listener();
  };
  return { journal, append, reads };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the journal feed', () => {
  it('hands each new entry to every follower it matches, once and in order, reading each write once', async () => {
    const { journal, append, reads } = fakeJournal();
    const feed = createJournalFeed({ journal, logger: pino({ level: 'silent' }) });
    const stop = new AbortController();
    const got: Record<string, number[]> = { all: [], p2: [] };
    feed.follow({ filters: {}, signal: stop.signal, deliver: async (entries) => void got.all?.push(...entries.map((entry) => entry.position)) });
    feed.follow({ filters: { partnerId: 'p2' }, signal: stop.signal, deliver: async (entries) => void got.p2?.push(...entries.map((entry) => entry.position)) });
    await settle();
    append(3, 'p1');
    append(2, 'p2');
    await settle();
    expect(got).toEqual({ all: [0, 1, 2, 3, 4], p2: [3, 4] });
    // Unfiltered reads only: one journal read serves every follower.
    expect(reads.every((read) => !read.filtered)).toBe(true);
    expect(feed.following('*')).toBe(1);
    expect(feed.following('p2')).toBe(1);
    stop.abort();
    expect(feed.following('*')).toBe(0);
  });

  it('holds back a follower whose client does not read, and only it; it then catches up, missing nothing', async () => {
    const { journal, append, reads } = fakeJournal();
    const feed = createJournalFeed({ journal, logger: pino({ level: 'silent' }) });
    const stop = new AbortController();
    let release: () => void = () => undefined;
    const stuck: number[] = [];
    const reading: number[] = [];
    feed.follow({
      filters: {},
      signal: stop.signal,
      deliver: (entries) => {
        stuck.push(...entries.map((entry) => entry.position));
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    feed.follow({ filters: {}, signal: stop.signal, deliver: async (entries) => void reading.push(...entries.map((entry) => entry.position)) });
    await settle();
    for (let batch = 0; batch < 10; batch += 1) {
      append(500);
      await settle();
    }
    // The reading follower got everything; the stuck one its first batch, and nothing is piled up for it.
    expect(reading).toHaveLength(5000);
    expect(stuck).toEqual(Array.from({ length: 500 }, (_, index) => index));
    const readsWhileStuck = reads.filter((read) => read.filtered || read.after < 500).length;
    expect(readsWhileStuck).toBeLessThan(5);
    // Its client reads again: it catches up, in order, every entry once.
    for (let round = 0; round < 20 && stuck.length < 5000; round += 1) {
      release();
      await settle();
    }
    expect(stuck).toEqual(Array.from({ length: 5000 }, (_, index) => index));
    stop.abort();
  });
});
