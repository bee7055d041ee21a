/**
 * The journal live (`GET /_mock/requests/stream`): server-sent events, one per request as it is answered, scoped and
 * filtered like the list, resumable with `Last-Event-ID`, and ended when the mock stops.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream, type StreamEvent } from '../support/event-stream-reader.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { otherSandboxKey, sandboxKey } from '../portal/support.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

/** Opens the request stream and reads its events as they come. */
const openStream = (on: TestMock, options: { query?: string; headers?: Record<string, string> } = {}) => readEventStream(`${on.url}/_mock/requests/stream`, options);

const requestIdsOf = (events: StreamEvent[]) => events.filter((event) => event.event === 'request').map((event) => (JSON.parse(event.data) as { requestId: string }).requestId);

describe('the request stream', () => {
  it("sends each new request as it is answered, with the entry's id, and only the key's partner's", async () => {
    const everyone = await openStream(mock);
    const mine = await openStream(mock, { headers: { authorization: sandboxKey } });
    const listsOnly = await openStream(mock, { query: '?operationId=listCustomers&status=200' });
    expect(everyone.response.status).toBe(200);
    expect(everyone.response.headers.get('content-type')).toBe('text/event-stream');
    expect(everyone.response.headers.get('cache-control')).toBe('no-store');

    const first = await mock.call('/v1/partner/customers');
    const theirs = await mock.call('/v1/partner/customers', { key: otherSandboxKey });
    const refused = await mock.call('/v1/partner/customers?limit=0');
    const sent = [first, theirs, refused].map((answer) => answer.headers.get('x-request-id'));

    expect(requestIdsOf(await everyone.waitFor(3))).toEqual(sent);
    expect(requestIdsOf(await mine.waitFor(2))).toEqual([sent[0], sent[2]]);
    expect(requestIdsOf(await listsOnly.waitFor(2))).toEqual([sent[0], sent[1]]);

    const [event] = everyone.events;
    const listed = await fetch(`${mock.url}/_mock/requests?limit=10`).then((response) => response.json() as Promise<{ payload: { data: { id: string; requestId: string }[] } }>);
    const entry = listed.payload.data.find((item) => item.requestId === sent[0]);
    expect(event?.id).toBe(entry?.id);
    expect(JSON.parse(event?.data ?? '')).toEqual(entry);
    for (const stream of [everyone, mine, listsOnly]) stream.close();
  });

  it('resumes after Last-Event-ID with the entries that came since', async () => {
    const live = await openStream(mock);
    const before = await mock.call('/v1/partner/customers');
    const [seen] = await live.waitFor(1);
    live.close();
    const missed = [await mock.call('/v1/partner/customers'), await mock.call('/v1/partner/customers', { key: otherSandboxKey })];
    const resumed = await openStream(mock, { headers: { 'last-event-id': seen?.id ?? '' } });
    expect(requestIdsOf(await resumed.waitFor(2))).toEqual(missed.map((answer) => answer.headers.get('x-request-id')));
    expect(requestIdsOf(resumed.events)).not.toContain(before.headers.get('x-request-id'));
    resumed.close();
  });

  it('catches up on a backlog larger than one read, every entry once and in order', async () => {
    const live = await openStream(mock);
    const marker = await mock.call('/v1/partner/customers');
    const [seen] = await live.waitFor(1);
    live.close();
    expect(requestIdsOf([seen as StreamEvent])).toEqual([marker.headers.get('x-request-id')]);
    const sent: (string | null)[] = [];
    for (let batch = 0; batch < 25; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, index) => mock.call(`/v1/partner/customers?limit=1&n=${batch * 100 + index}`)));
      sent.push(...answers.map((answer) => answer.headers.get('x-request-id')));
    }
    const resumed = await openStream(mock, { headers: { 'last-event-id': seen?.id ?? '' } });
    const received = requestIdsOf(await resumed.waitFor(2500));
    resumed.close();
    expect(new Set(received).size).toBe(received.length);
    expect(received.slice().sort()).toEqual(sent.slice().sort());
    // In the journal's order: as the list shows them, oldest first.
    const listed = await fetch(`${mock.url}/_mock/requests?limit=1000&operationId=listCustomers`).then((response) => response.json() as Promise<{ payload: { data: { requestId: string }[] } }>);
    const newest = listed.payload.data.map((entry) => entry.requestId);
    expect(received.slice(-newest.length)).toEqual(newest);
  });

  it('refuses a malformed filter or Last-Event-ID like the list does', async () => {
    for (const [query, headers] of [['?status=99', {}], ['', { 'last-event-id': 'not-an-id' }]] as const) {
      const response = await fetch(`${mock.url}/_mock/requests/stream${query}`, { headers });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('E_VALIDATION_FAILED');
    }
  });

  it('allows 8 streams a partner at once, and says so at the 9th; one closed frees its place', async () => {
    const streams = await Promise.all(Array.from({ length: 8 }, () => openStream(mock, { headers: { authorization: sandboxKey } })));
    expect(streams.map((stream) => stream.response.status)).toEqual(Array(8).fill(200));
    const ninth = await fetch(`${mock.url}/_mock/requests/stream`, { headers: { authorization: sandboxKey } });
    expect(ninth.status).toBe(409);
    expect(((await ninth.json()) as { error: { code: string } }).error.code).toBe('E_STREAM_LIMIT');
    // Another partner's, and every partner's, are counted apart.
    const theirs = await openStream(mock, { headers: { authorization: otherSandboxKey } });
    expect(theirs.response.status).toBe(200);
    theirs.close();
    streams[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await openStream(mock, { headers: { authorization: sandboxKey } });
    expect(again.response.status).toBe(200);
    for (const stream of [...streams, again]) stream.close();
  });

  it('ends only its own streams when one of two mocks in a process stops', async () => {
    const [first, second] = await Promise.all([startTestMock(), startTestMock()]);
    const onSecond = await openStream(second);
    await first.close();
    await second.call('/v1/partner/customers');
    expect(requestIdsOf(await onSecond.waitFor(1))).toHaveLength(1);
    onSecond.close();
    await second.close();
  });

  it('ends when the mock stops, without holding its shutdown', async () => {
    const own = await startTestMock();
    const live = await openStream(own);
    await own.call('/v1/partner/customers');
    await live.waitFor(1);
    await own.close();
    await live.ended;
    // Held, the shutdown would have waited out its grace period and said so.
    expect(own.logs.filter((line) => String(line.msg).includes('after the grace period'))).toEqual([]);
  });
});
