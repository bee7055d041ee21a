/**
 * The optimistic runner (mock/store/optimistic.ts) that Redis uses, over the fake remote store: a body reads what
 * has been fetched so far, gets and ranges cached apart, fetched rounds apart. A key a body reads twice, by a get
 * and in a range, may then be seen at two versions (or as a guess beside a fetched value): such a run must never be
 * committed, or the body would have decided on two states at once while the commit checked only one.
 */
import { describe, expect, it } from 'vitest';
import { within } from '../../../mock/store/keys.ts';
import { table } from '../../../mock/store/store.ts';
import { newRemoteData, openRemoteStore } from '../../support/remote-store.ts';

const items = table<{ n: number }>('probe_items', { ordered: true });
const outcome = table<string>('probe_outcome');
const flags = table<number>('probe_flags');

describe('a key read both in a range and by itself', () => {
  it('is never committed as absent when the range has it (a guess beside a fetched value)', async () => {
    const store = openRemoteStore({ latencyMs: 0 });
    await store.write((tx) => tx.put(items, 'k', { n: 5 }));
    await store.write((tx) => {
      const [entry] = tx.scan(items, within([], { limit: 1 }));
      if (!entry) return tx.put(outcome, 'seen', 'nothing in the range');
      const alone = tx.get(items, entry.key);
      tx.put(outcome, 'seen', `range ${entry.value.n}, alone ${alone === undefined ? 'absent' : alone.n}`);
    });
    expect(await store.read((tx) => tx.get(outcome, 'seen'))).toBe('range 5, alone 5');
  });

  it('is never committed on two versions of it, fetched rounds apart while another process changed it', async () => {
    const data = newRemoteData();
    const store = openRemoteStore({ data, latencyMs: 0 });
    await store.write((tx) => {
      tx.put(items, 'k', { n: 5 });
      tx.put(flags, 'scan', 1);
    });
    let runs = 0;
    await store.write((tx) => {
      runs += 1;
      // Another process changes k after the first round trip, before the range is fetched.
      if (runs === 2) (data.tables.get(items.name) as Map<string, { value: unknown; version: number }>).set('k', { value: { n: 6 }, version: (data.clock += 1) });
      // The range is read first (so that it is fetched a round after k alone), then k by itself.
      const [entry] = tx.get(flags, 'scan') ? tx.scan(items, within([], { limit: 1 })) : [];
      const alone = tx.get(items, 'k');
      tx.put(outcome, 'seen', `range ${entry?.value.n}, alone ${alone?.n}`);
    });
    expect(await store.read((tx) => tx.get(outcome, 'seen'))).toBe('range 6, alone 6');
  });

  it('is never committed as missing from a range fetched before another process added it, beside its value', async () => {
    const data = newRemoteData();
    const store = openRemoteStore({ data, latencyMs: 0 });
    await store.write((tx) => {
      tx.put(items, 'a', { n: 1 });
      tx.put(flags, 'alone', 1);
    });
    let runs = 0;
    await store.write((tx) => {
      runs += 1;
      // Another process adds k after the range was fetched (round one), before k is fetched by itself (round two).
      if (runs === 2) (data.tables.get(items.name) as Map<string, { value: unknown; version: number }>).set('k', { value: { n: 7 }, version: (data.clock += 1) });
      const inRange = tx.scan(items, within([], { limit: 10 })).map((entry) => entry.key);
      const alone = tx.get(flags, 'alone') ? tx.get(items, 'k') : undefined;
      tx.put(outcome, 'seen', `range ${inRange.join(',')}, alone ${alone?.n}`);
    });
    expect(await store.read((tx) => tx.get(outcome, 'seen'))).toBe('range a,k, alone 7');
  });
});
