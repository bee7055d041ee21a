/**
 * The mock's own timelines and its webhook endpoint state, followed by a partner's webhook receiver that verifies
 * every delivery (Standard Webhooks) and checks every payload against the contract's webhook schemas: the automatic
 * timeline (--formation-timeline auto) taking formations all the way by itself, with quick retries; the manual one
 * leaving them PENDING; an endpoint disabled after its retries and re-enabled through /_mock/webhook-endpoint/reenable.
 * What the contract promises of the lifecycle (simulateCompanyFormation, the statuses, events in order, deduplicated
 * on id after refused deliveries, E_FORMATION_ALREADY_FINAL) is tested in contract-tests/formation-lifecycle.test.ts,
 * against the mock and any sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Company, Document } from '../../../generated/openapi.js';
import { contractErrors } from '../reference/contract-schemas.ts';
import { startReceiver, type ReceivedEvent, type Receiver } from '../webhooks/support/receiver.ts';
import { ccorpBody, createCompany, createCustomer, eventually, llcBody, simulate, sleep, webhookSchemaName } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { quickTimelineSettings, startTestMock, type TestMock } from '../support/mock-harness.ts';

const secret = 'whsec_C2VjcmV0LWZvci10aGUtbGlmZWN5Y2xlLXRlc3Rz';
const llcDocuments = ['ARTICLES_OF_ORGANIZATION', 'OPERATING_AGREEMENT', 'EIN_CONFIRMATION_LETTER'];
const ccorpDocuments = ['CERTIFICATE_OF_INCORPORATION', 'BYLAWS', 'EIN_CONFIRMATION_LETTER'];
const fullFormation = ['company.formation.submitted', 'company.formation.completed', 'company.ein.issued', 'document.ready', 'document.ready', 'document.ready'];

const eventsOf = (receiver: Receiver, companyId: string): ReceivedEvent[] => receiver.accepted().filter((event) => event.data['serviceCompanyId'] === companyId);

/** Unique by id, in the order first accepted: what a partner deduplicating on `id` keeps. */
function deduplicated(events: ReceivedEvent[]): ReceivedEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => !seen.has(event.id) && seen.add(event.id));
}

/** Every request the receiver got verifies with the secret, and carries a payload the contract allows. */
function expectVerifiedAndValid(receiver: Receiver): void {
  expect(receiver.requests.length).toBeGreaterThan(0);
  const verifier = new Webhook(secret);
  for (const request of receiver.requests) {
    expect(request.verified, request.body).toBe(true);
    const event = verifier.verify(request.body, request.headers) as ReceivedEvent;
    expect(request.headers['webhook-id']).toBe(event.id);
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(contractErrors(webhookSchemaName(event.type), event), `${event.type} ${request.body}`).toBe('');
  }
}

async function documentsOf(mock: TestMock, companyId: string): Promise<Document[]> {
  const response = await mock.call(`/v1/partner/companies/${companyId}/documents`);
  expect(response.status).toBe(200);
  return response.json.payload.data;
}

describe('the automatic timeline', () => {
  let mock: TestMock;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(secret, () => ({ status: 200 }));
    mock = await startTestMock(quickTimelineSettings(receiver.url, secret));
  });
  afterAll(async () => {
    await closeCheckingJournal(mock);
    await receiver.close();
  });

  it('takes an LLC to COMPLETED, then its EIN, then its three documents, each announced in order', async () => {
    const customer = await createCustomer(mock);
    const created = await createCompany(mock, llcBody(customer.serviceCustomerId));
    expect(created).toMatchObject({ status: 'PENDING', filingDate: null, ein: null, failure: null });
    const id = created.serviceCompanyId;

    // Watch it move: the status, the EIN and the documents only ever advance, in that order.
    const stages: string[] = [];
    const stageOf = (company: Company, documents: number) => `${company.status}${company.ein ? '+ein' : ''}+${documents}`;
    const final = await eventually(async () => {
      // Documents first: the company read after them can only be as far along, never behind.
      const documents = (await documentsOf(mock, id)).length;
      const company = (await mock.call(`/v1/partner/companies/${id}`)).json.payload as Company;
      const stage = stageOf(company, documents);
      if (stages.at(-1) !== stage) stages.push(stage);
      return documents === 3 ? company : undefined;
    }, 15_000, 'three documents');
    const order = ['PENDING+0', 'SUBMITTED+0', 'COMPLETED+0', 'COMPLETED+ein+0', 'COMPLETED+ein+1', 'COMPLETED+ein+2', 'COMPLETED+ein+3'];
    expect(stages.map((stage) => order.indexOf(stage))).toEqual([...stages.map((stage) => order.indexOf(stage))].sort((a, b) => a - b));
    expect(stages.every((stage) => order.includes(stage))).toBe(true);

    expect(final.status).toBe('COMPLETED');
    expect(final.filingDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(final.ein).toMatch(/^\d{2}-\d{7}$/);
    const documents = await documentsOf(mock, id);
    expect(documents.map((document) => document.type)).toEqual(llcDocuments);

    const events = await eventually(() => (eventsOf(receiver, id).length >= 6 ? eventsOf(receiver, id) : undefined), 10_000, 'six events');
    expect(events.map((event) => event.type)).toEqual(fullFormation);
    const [submitted, completed, einIssued, ...ready] = events;
    expect(submitted?.data).toMatchObject({ serviceCompanyId: id, serviceCustomerId: customer.serviceCustomerId, status: 'SUBMITTED' });
    expect(completed?.data).toMatchObject({ status: 'COMPLETED', filingDate: final.filingDate, name: final.name });
    expect(einIssued?.data).toMatchObject({ ein: final.ein });
    expect(ready.map((event) => event.data['documentType'])).toEqual(llcDocuments);
    expect(ready.map((event) => event.data['documentId'])).toEqual(documents.map((document) => document.documentId));
    expect(new Set(events.map((event) => event.id)).size).toBe(6);
    expectVerifiedAndValid(receiver);
  });

  it('delivers each event exactly twice to a receiver that fails every other request, and keeps the endpoint enabled', async () => {
    // Counted per company: only one event of a company is in flight at a time, so no event fails twice in a row
    // and the endpoint is never disabled, however the companies' deliveries interleave.
    const requests = new Map<string, number>();
    receiver.policy = (request) => {
      const company = String(request.event?.data['serviceCompanyId']);
      requests.set(company, (requests.get(company) ?? 0) + 1);
      return (requests.get(company) as number) % 2 === 1 ? { status: 500 } : { status: 200 };
    };
    const customer = await createCustomer(mock);
    const companies = [
      await createCompany(mock, llcBody(customer.serviceCustomerId)),
      await createCompany(mock, ccorpBody(customer.serviceCustomerId)),
      await createCompany(mock, llcBody(customer.serviceCustomerId)),
    ];
    const ids = companies.map((company) => company.serviceCompanyId);
    await eventually(() => ids.every((id) => deduplicated(eventsOf(receiver, id)).length === 6), 20_000, 'every event of the three companies');
    receiver.policy = () => ({ status: 200 });

    for (const company of companies) {
      // Refused once, then accepted once: nothing more is sent (the contract allows more: at least once).
      const arrived = receiver.requests.filter((request) => request.event?.data['serviceCompanyId'] === company.serviceCompanyId);
      expect(arrived.length).toBe(12);
      expect(deduplicated(eventsOf(receiver, company.serviceCompanyId)).map((event) => event.type)).toEqual(fullFormation);
    }
    expectVerifiedAndValid(receiver);
    const health = (await (await fetch(`${mock.url}/_mock/health`)).json()) as { payload: { webhookEndpointDisabled: boolean } };
    expect(health.payload.webhookEndpointDisabled).toBe(false);
  });
});

describe('the manual timeline', () => {
  let mock: TestMock;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver(secret, () => ({ status: 200 }));
    mock = await startTestMock({ formationTimeline: 'manual', webhookUrl: receiver.url, webhookSecret: secret, webhookRetryDelaysMs: [10, 10] });
  });
  afterAll(async () => {
    await closeCheckingJournal(mock);
    await receiver.close();
  });

  it('leaves a formation PENDING until it is simulated', async () => {
    const customer = await createCustomer(mock);
    const company = await createCompany(mock, llcBody(customer.serviceCustomerId));
    await sleep(100);
    expect((await mock.call(`/v1/partner/companies/${company.serviceCompanyId}`)).json.payload.status).toBe('PENDING');
    expect(eventsOf(receiver, company.serviceCompanyId)).toEqual([]);
  });

  it('disables an endpoint that fails every retry, holds the events, and on re-enabling sends webhook_endpoint.disabled first, then the held events', async () => {
    // The earlier tests' deliveries are all done before the endpoint starts failing.
    await eventually(async () => {
      const { deliveries } = ((await (await fetch(`${mock.url}/_mock/deliveries`)).json()) as { payload: { deliveries: { state: string }[] } }).payload;
      return deliveries.every((delivery: { state: string }) => delivery.state === 'delivered');
    }, 10_000, 'earlier deliveries');
    receiver.policy = () => ({ status: 500 });
    const before = receiver.requests.length;

    const customer = await createCustomer(mock);
    const first = await createCompany(mock, llcBody(customer.serviceCustomerId));
    expect((await simulate(mock, first.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);

    const health = async () => ((await (await fetch(`${mock.url}/_mock/health`)).json()) as { payload: { webhookEndpointDisabled: boolean } }).payload;
    await eventually(async () => (await health()).webhookEndpointDisabled, 10_000, 'the endpoint disabled');
    // The first event was tried once and retried twice ([10, 10]), then nothing more is sent.
    const attempts = receiver.requests.slice(before);
    expect(attempts).toHaveLength(3);
    const failedEventId = attempts[0]?.event?.id;
    expect(attempts.every((request) => request.event?.id === failedEventId && request.event?.type === 'company.formation.submitted')).toBe(true);

    // Events of another formation, while disabled, are held too.
    const second = await createCompany(mock, llcBody(customer.serviceCustomerId));
    expect((await simulate(mock, second.serviceCompanyId, { target: 'NEXT' })).status).toBe(200);
    await sleep(60);
    expect(receiver.requests.length - before).toBe(3);
    const { deliveries } = ((await (await fetch(`${mock.url}/_mock/deliveries`)).json()) as { payload: { deliveries: { state: string }[] } }).payload;
    const held = deliveries.filter((delivery) => delivery.state === 'held');
    expect(held).toHaveLength(7);

    receiver.policy = () => ({ status: 200 });
    const acceptedBefore = receiver.accepted().length;
    const reenabled = await fetch(`${mock.url}/_mock/webhook-endpoint/reenable`, { method: 'POST' });
    expect(reenabled.status).toBe(200);
    expect(((await reenabled.json()) as { payload: unknown }).payload).toEqual({ endpointDisabled: false });
    expect((await health()).webhookEndpointDisabled).toBe(false);

    const after = await eventually(() => {
      const accepted = receiver.accepted().slice(acceptedBefore);
      return accepted.length >= 8 ? accepted : undefined;
    }, 10_000, 'the notice and the seven held events');
    expect(after).toHaveLength(8);
    const [notice, ...resumed] = after;
    expect(notice?.type).toBe('webhook_endpoint.disabled');
    expect(notice?.data).toMatchObject({ endpointUrl: receiver.url, failedEventId });
    expect(deduplicated(resumed.filter((event) => event.data['serviceCompanyId'] === first.serviceCompanyId)).map((event) => event.type)).toEqual(fullFormation);
    expect(resumed.filter((event) => event.data['serviceCompanyId'] === first.serviceCompanyId)[0]?.id).toBe(failedEventId);
    expect(resumed.filter((event) => event.data['serviceCompanyId'] === second.serviceCompanyId).map((event) => event.type)).toEqual(['company.formation.submitted']);
    expectVerifiedAndValid(receiver);

    // Re-enabling an endpoint that is not disabled does nothing.
    const count = receiver.requests.length;
    expect(((await (await fetch(`${mock.url}/_mock/webhook-endpoint/reenable`, { method: 'POST' })).json()) as { payload: unknown }).payload).toEqual({ endpointDisabled: false });
    await sleep(50);
    expect(receiver.requests.length).toBe(count);
  });
});
