/** The idempotency store on its own: retention and the cap that keeps its memory bounded. */
import { describe, expect, it } from 'vitest';
import type { SerializedResponse } from '../../../mock/http/exchange.ts';
import { createIdempotencyStore } from '../../../mock/idempotency/idempotency-store.ts';

const answer = (status: number): SerializedResponse => ({ status, headers: { 'content-type': 'application/json' }, body: '{}', json: {} });

function clockAt(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('the idempotency store', () => {
  it('keeps a record in flight, then done with its answer', () => {
    const store = createIdempotencyStore({ ttlMs: 1000, maxRecords: 10 });
    store.begin('a', 'fp');
    expect(store.get('a')).toMatchObject({ state: 'in-flight', fingerprint: 'fp' });
    store.complete('a', answer(201));
    expect(store.get('a')).toMatchObject({ state: 'done', fingerprint: 'fp', response: { status: 201 } });
  });

  it('forgets an abandoned record, so the key is free again', () => {
    const store = createIdempotencyStore({ ttlMs: 1000, maxRecords: 10 });
    store.begin('a', 'fp');
    store.abandon('a');
    expect(store.get('a')).toBeUndefined();
    expect(store.size()).toBe(0);
  });

  it('does not complete a record it no longer has', () => {
    const store = createIdempotencyStore({ ttlMs: 1000, maxRecords: 10 });
    store.complete('never', answer(200));
    expect(store.get('never')).toBeUndefined();
  });

  it('expires a record after the TTL, counted from its first use', () => {
    const clock = clockAt();
    const store = createIdempotencyStore({ ttlMs: 1000, maxRecords: 10, now: clock.now });
    store.begin('a', 'fp');
    clock.advance(500);
    store.complete('a', answer(200));
    clock.advance(499);
    expect(store.get('a')?.state).toBe('done');
    clock.advance(1);
    expect(store.get('a')).toBeUndefined();
    expect(store.size()).toBe(0);
  });

  it('drops expired records as new ones arrive', () => {
    const clock = clockAt();
    const store = createIdempotencyStore({ ttlMs: 100, maxRecords: 10, now: clock.now });
    store.begin('a', 'fp');
    store.begin('b', 'fp');
    clock.advance(150);
    store.begin('c', 'fp');
    expect(store.size()).toBe(1);
    expect(store.get('c')).toBeDefined();
  });

  it('caps the number of records, dropping the oldest first', () => {
    const clock = clockAt();
    const store = createIdempotencyStore({ ttlMs: 60_000, maxRecords: 3, now: clock.now });
    for (const scope of ['a', 'b', 'c', 'd', 'e']) {
      store.begin(scope, `fp-${scope}`);
      store.complete(scope, answer(200));
      clock.advance(1);
    }
    expect(store.size()).toBe(3);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBeUndefined();
    expect(['c', 'd', 'e'].map((scope) => store.get(scope)?.fingerprint)).toEqual(['fp-c', 'fp-d', 'fp-e']);
  });

  it('counts a scope begun again as the newest', () => {
    const clock = clockAt();
    const store = createIdempotencyStore({ ttlMs: 60_000, maxRecords: 2, now: clock.now });
    store.begin('a', 'fp');
    clock.advance(1);
    store.begin('b', 'fp');
    clock.advance(1);
    store.abandon('a');
    store.begin('a', 'fp-again');
    clock.advance(1);
    store.begin('c', 'fp');
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')?.fingerprint).toBe('fp-again');
    expect(store.get('c')).toBeDefined();
  });
});
