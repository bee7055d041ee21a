/**
 * The change stream (`GET /_mock/changes`): an event naming the topics that changed, whatever changed them (a
 * request, a formation step, a webhook delivery, a fault used), scoped by partner like the request stream, gathered
 * to one event every 250 ms at most, and refused for a topic the contract does not name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventStream, type EventStreamReader, type StreamEvent } from '../support/event-stream-reader.ts';
import { createCompany, createCustomer, customerBody, eventually, llcBody, newIdempotencyKey, simulate } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { createEndpoint, otherSandboxKey, sandboxKey, startPortalMock } from '../portal/support.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';

let mock: TestMock;
let receiver: Receiver;
beforeAll(async () => {
  mock = await startPortalMock();
  receiver = await startReceiver('whsec_dGhlIHNlY3JldCB0aGUgZW5kcG9pbnQgbWFrZXMgcmVwbGFjZXMgaXQ=', () => ({ status: 200 }));
});
afterAll(async () => {
  await closeCheckingJournal(mock);
  await receiver.close();
});

const every = ['customers', 'companies', 'documents', 'events', 'endpoints', 'faults', 'settings'];
const topicsOf = (event: StreamEvent | undefined): string[] => (event ? (JSON.parse(event.data) as { topics: string[] }).topics.sort() : []);
/** The topics of every event from the `from`th on. */
const heardSince = (stream: EventStreamReader, from: number): Set<string> => new Set(stream.events.slice(from).flatMap(topicsOf));
const openChanges = (options: { query?: string; key?: string } = {}) =>
  readEventStream(`${mock.url}/_mock/changes`, { ...(options.query ? { query: options.query } : {}), headers: options.key ? { authorization: options.key } : {} });

/** Waits until the stream has heard `topic` since its `from`th event. */
const hears = (stream: EventStreamReader, from: number, topic: string) => eventually(() => heardSince(stream, from).has(topic) || undefined, 5_000, `the stream to hear ${topic}`);

describe('the change stream', () => {
  it('opens naming every topic it follows, then names what each change touched, for the partner it acts for', async () => {
    const mine = await openChanges({ key: sandboxKey });
    const theirs = await openChanges({ key: otherSandboxKey });
    const everyone = await openChanges();
    const companiesOnly = await openChanges({ key: sandboxKey, query: '?topics=companies' });
    expect(mine.response.status).toBe(200);
    expect(mine.response.headers.get('content-type')).toBe('text/event-stream');
    expect(topicsOf((await mine.waitFor(1))[0])).toEqual([...every].sort());
    expect(topicsOf((await companiesOnly.waitFor(1))[0])).toEqual(['companies']);
    await Promise.all([theirs.waitFor(1), everyone.waitFor(1)]);

    const customer = await createCustomer(mock, { key: sandboxKey });
    await hears(mine, 1, 'customers');
    await hears(everyone, 1, 'customers');
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId), sandboxKey);
    await hears(mine, 1, 'companies');
    await hears(companiesOnly, 1, 'companies');
    expect(heardSince(companiesOnly, 0)).toEqual(new Set(['companies']));

    // A formation moved: the company, its documents, its events.
    const before = mine.events.length;
    expect((await simulate(mock, company.serviceCompanyId, { target: 'COMPLETED' }, sandboxKey)).status).toBe(200);
    await hears(mine, before, 'documents');
    expect(heardSince(mine, before)).toEqual(new Set(['companies', 'documents', 'events']));
    // Another partner hears nothing of it.
    expect(theirs.events).toHaveLength(1);
    for (const stream of [mine, theirs, everyone, companiesOnly]) stream.close();
  });

  it('names the events when a webhook event is made and again once its delivery is settled, and an endpoint when it is created', async () => {
    const mine = await openChanges({ key: sandboxKey, query: '?topics=events,endpoints' });
    await mine.waitFor(1);
    const endpoint = await createEndpoint(mock, sandboxKey, { url: receiver.url });
    receiver.secrets = [endpoint.secret];
    await hears(mine, 1, 'endpoints');
    let answeredAt = 0;
    receiver.policy = () => ((answeredAt = Date.now()), { status: 200 });
    const customer = await createCustomer(mock, { key: sandboxKey });
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId), sandboxKey);
    const from = mine.events.length;
    await simulate(mock, company.serviceCompanyId, { target: 'NEXT' }, sandboxKey);
    await eventually(() => receiver.accepted().some((event) => event.data.serviceCompanyId === company.serviceCompanyId) || undefined, 5_000, 'the delivery');
    // The attempt is settled after the receiver answered: a change of the events comes after that.
    await eventually(() => mine.events.some((event) => event.at >= answeredAt && topicsOf(event).includes('events')) || undefined, 5_000, 'a change after the delivery');
    expect(heardSince(mine, from)).toEqual(new Set(['events']));
    mine.close();
  });

  it('names the faults when one is armed, used by a request, and gone', async () => {
    const mine = await openChanges({ key: sandboxKey, query: '?topics=faults' });
    const theirs = await openChanges({ key: otherSandboxKey, query: '?topics=faults' });
    await Promise.all([mine.waitFor(1), theirs.waitFor(1)]);
    const armed = await fetch(`${mock.url}/_mock/faults`, {
      method: 'POST',
      headers: { authorization: sandboxKey, 'content-type': 'application/json' },
      body: JSON.stringify({ operationId: 'listCustomers', status: 503, count: 1 }),
    });
    expect(armed.status).toBe(201);
    await mine.waitFor(2);
    expect((await mock.call('/v1/partner/customers', { key: sandboxKey })).status).toBe(503);
    await mine.waitFor(3);
    expect(await fetch(`${mock.url}/_mock/faults`, { headers: { authorization: sandboxKey } }).then((response) => response.json())).toMatchObject({ payload: { data: [] } });
    expect(theirs.events).toHaveLength(1);
    // One armed for every partner concerns every partner.
    await fetch(`${mock.url}/_mock/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operationId: 'listStates', delayMs: 1, count: 1 }) });
    await theirs.waitFor(2);
    await fetch(`${mock.url}/_mock/faults`, { method: 'DELETE' });
    for (const stream of [mine, theirs]) stream.close();
  });

  it('gathers a burst of changes into a few events, at most one every 250 ms', async () => {
    const mine = await openChanges({ key: sandboxKey, query: '?topics=customers' });
    await mine.waitFor(1);
    const startedAt = Date.now();
    for (let sent = 0; sent < 60; sent += 1) {
      await mock.call('/v1/partner/customers', { key: sandboxKey, body: customerBody(), idempotencyKey: newIdempotencyKey() });
    }
    const elapsed = Date.now() - startedAt;
    await hears(mine, 1, 'customers');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const burst = mine.events.length - 1;
    console.log(`60 creates in ${elapsed} ms: ${burst} change events`);
    expect(burst).toBeGreaterThanOrEqual(1);
    // One event per 250 ms of the burst at most, and one for its end.
    expect(burst).toBeLessThanOrEqual(Math.ceil((elapsed + 400) / 250) + 1);
    mine.close();
  });

  it("names every topic a partner's reset empties, to that partner only", async () => {
    const mine = await openChanges({ key: sandboxKey });
    const theirs = await openChanges({ key: otherSandboxKey });
    await Promise.all([mine.waitFor(1), theirs.waitFor(1)]);
    expect((await fetch(`${mock.url}/_mock/reset`, { method: 'POST', headers: { authorization: sandboxKey } })).status).toBe(200);
    await eventually(() => every.every((topic) => topic === 'faults' || topic === 'settings' || heardSince(mine, 1).has(topic)) || undefined, 5_000, 'every topic');
    expect(theirs.events).toHaveLength(1);
    for (const stream of [mine, theirs]) stream.close();
  });

  it('refuses a topic the contract does not name', async () => {
    const answer = await mock.call('/_mock/changes?topics=companies,weather', { key: null });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'E_VALIDATION_FAILED', details: [{ in: 'query', field: '/topics/1', code: 'E_NOT_ALLOWED_VALUE' }] });
  });
});
