/**
 * The requests the mock answered, newest first, as a list that follows the journal: the stream first, so that
 * nothing answered while the first page is read is missed, then the first page, merged by time, duplicates dropped;
 * older pages on demand, up to what the page keeps.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf, type JournalEntry } from '../../api.ts';
import type { StreamState } from '../../live/event-stream.ts';
import { followJournal } from '../../live/journal-stream.ts';
import { adminToken, partnerKey } from '../../session.ts';

/** Entries kept in the page at most; older ones are read again from the journal on demand. */
export const maxEntries = 10_000;

const newestFirst = (a: JournalEntry, b: JournalEntry) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);

export function useRequestList(query: Record<string, string | number | boolean>) {
  const [entries, setEntries] = useState<{ rows: JournalEntry[] }>({ rows: [] });
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [problem, setProblem] = useState<string>();
  const [live, setLive] = useState<'connecting' | StreamState>('connecting');
  const key = partnerKey.value;
  const token = adminToken.value;

  useEffect(() => {
    const stop = new AbortController();
    const seen = new Set<string>();
    const fresh = (added: JournalEntry[]) => added.filter((entry) => !seen.has(entry.id) && seen.add(entry.id));
    const readFirstPage = async () => {
      const page = await adminClient().GET('/_mock/requests', { params: { query: { limit: 200, ...query } }, signal: stop.signal });
      if (!page.data) return setProblem(problemOf(page));
      setProblem(undefined);
      // Entries streamed while the page was read may be newer or older than its own: the two are merged by time.
      const added = fresh(page.data.payload.data);
      setEntries((current) => ({ rows: [...current.rows, ...added].sort(newestFirst).slice(0, maxEntries) }));
      setOlderCursor(page.data.payload.nextCursor);
    };
    setEntries({ rows: [] });
    setLive('connecting');
    followJournal({
      key,
      token,
      signal: stop.signal,
      filters: query,
      onEntry: (entry) => {
        if (fresh([entry]).length > 0) setEntries((current) => ({ rows: [entry, ...current.rows].slice(0, maxEntries) }));
      },
      onState: setLive,
    });
    void readFirstPage().catch((error: unknown) => stop.signal.aborted || setProblem(String(error)));
    return () => stop.abort();
  }, [key, token, JSON.stringify(query)]);

  const readOlder = async () => {
    if (!olderCursor) return;
    const page = await adminClient().GET('/_mock/requests', { params: { query: { limit: 200, cursor: olderCursor, ...query } } });
    if (!page.data) return setProblem(problemOf(page));
    const older = [...page.data.payload.data].reverse();
    setEntries((current) => ({ rows: [...current.rows, ...older].slice(0, maxEntries) }));
    setOlderCursor(page.data.payload.nextCursor);
  };

  return { rows: entries.rows, problem, live, canReadOlder: olderCursor !== null && entries.rows.length < maxEntries, readOlder };
}
