/**
 * The store conformance suite: the same tests against every backend (memory, SQLite, Redis), so that the handlers,
 * the formation timeline and the webhook dispatcher can rely on one behaviour whichever runs. Where a rule is about
 * several processes (claims, locks), a second store on the same data stands in for the second process.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../../generated/openapi.js';
import { never } from '../../../mock/formation/timeline-records.ts';
import { forgetRequests, partnerShare } from '../../../mock/journal/journal-budget.ts';
import type { RequestRecord } from '../../../mock/journal/journal-records.ts';
import type { AttemptRecord, LaneClaim, OutboxEvent } from '../../../mock/webhooks/outbox/outbox-types.ts';
import { newId } from '../../../mock/ids.ts';
import type { WebhookEventOf } from '../../../mock/webhooks/event-payloads.ts';
import { eventually, example } from '../support/http-fixtures.ts';
import { Redis } from 'ioredis';
import { openStore } from '../../../mock/store/open-store.ts';
import { key, parts, within } from '../../../mock/store/keys.ts';
import { table } from '../../../mock/store/store.ts';
import { redisTestsEnabled, startRedisServer } from '../../support/redis-server.ts';
import { allBackends, sqliteBackend, type Backend } from './backends.ts';
import type { RecordOptions, Records } from './records.ts';

type Store = Records;
type StoreOptions = RecordOptions;

/** Ids built like the contract's (`com_` + 24), so the events validate as they would in the mock. */
function companyId(label: string): string {
  return `com_${label.padEnd(24, '0').slice(0, 24)}`;
}

/** A `company.formation.submitted` event for a company; `n` goes into the customer id so each event is distinct. */
function submittedEvent(company: string, n = 0): WebhookEventOf<'company.formation.submitted'> {
  const at = new Date().toISOString();
  return { id: newId('evt'), type: 'company.formation.submitted', timestamp: at, data: { serviceCompanyId: company, serviceCustomerId: `cus_${String(n).padStart(24, '0')}`, status: 'SUBMITTED', submittedAt: at } };
}

const [partnerA, partnerB] = ['ptn_aaaaaaaaaaaaaaaaaaaaaaaa', 'ptn_bbbbbbbbbbbbbbbbbbbbbbbb'];
const t0 = 1_800_000_000_000;

function customer(n: number, email = `person.${n}@example.com`) {
  return { serviceCustomerId: `cus_${String(n).padStart(24, '0')}`, email, firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR', phoneNumber: null, createdAt: new Date(t0).toISOString() };
}

function company(n: number, overrides: Partial<Company> = {}): Company {
  const base = example<{ payload: Company }>('LlcCompanyAccepted').payload;
  return { ...base, serviceCompanyId: companyId(`c${n}x`), serviceCustomerId: `cus_${String(n % 3).padStart(24, '0')}`, ...overrides } as Company;
}

function outboxEvent(company: string, n = 0, endpointIds: string[] = ['default'], partnerId = partnerA): OutboxEvent {
  return { partnerId, event: submittedEvent(company, n), orderingKey: company, endpointIds };
}

function attempt(claim: LaneClaim, outcome: AttemptRecord['outcome'], at = t0): AttemptRecord {
  return { eventId: claim.eventId, endpointId: claim.endpointId, type: claim.type, orderingKey: claim.laneKey, attempt: claim.attempts + 1, at: new Date(at).toISOString(), durationMs: 1, outcome };
}

function request(n: number, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return { atMs: t0 + n, requestId: `req_${n}`, method: 'GET', path: `/v1/partner/customers/${n}`, operationId: 'getCustomer', status: 200, durationMs: 1, partnerId: partnerA, partner: 'dk_test_…aaaa', replayed: false, errorCode: null, ...overrides };
}

const lock = (scope: string, owner = 'owner-1', partnerId = partnerA) => ({ partnerId, scope, owner });
const answer = { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' }, body: '{"payload":{},"error":{}}' };

describe.each(allBackends())('the $name store', (backend: Backend) => {
  const open: Store[] = [];
  const track = (store: Store) => (open.push(store), store);
  const fresh = async (options?: Partial<StoreOptions>) => track(await backend.open(options));
  const second = async (options?: Partial<StoreOptions>) => {
    if (!backend.openSecond) throw new Error('no second store');
    return track(await backend.openSecond(options));
  };
  const itShared = backend.openSecond ? it : it.skip;
  const itDurable = backend.reopen ? it : it.skip;
  const reopened = async () => track(await (backend.reopen as NonNullable<Backend['reopen']>)());

  beforeAll(async () => {
    if (backend.enabled) await backend.setUp();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    if (backend.enabled) await backend.tearDown();
  });
  if (!backend.enabled) {
    it.skip(`needs redis-server`, () => undefined);
    return;
  }

  describe('customers', () => {
    it('creates a customer once per email, compared without case, and reads it back', async () => {
      const store = await fresh();
      expect(await store.customers.create(partnerA, customer(1, 'Ada@Example.com'))).toEqual({ customer: customer(1, 'Ada@Example.com'), created: true });
      const again = await store.customers.create(partnerA, customer(2, 'ada@example.COM'));
      expect(again).toEqual({ customer: customer(1, 'Ada@Example.com'), created: false });
      expect(await store.customers.get(partnerA, customer(1).serviceCustomerId)).toEqual(customer(1, 'Ada@Example.com'));
      expect(await store.customers.get(partnerA, customer(2).serviceCustomerId)).toBeUndefined();
    });

    it("keeps partners apart: one partner never reads, lists or collides with another's customers", async () => {
      const store = await fresh();
      await store.customers.create(partnerA, customer(1));
      expect(await store.customers.get(partnerB, customer(1).serviceCustomerId)).toBeUndefined();
      expect((await store.customers.list(partnerB, {}, { limit: 10 })).items).toEqual([]);
      expect((await store.customers.create(partnerB, customer(2, customer(1).email))).created).toBe(true);
    });

    it('lists newest first, page by page, and filters by email', async () => {
      const store = await fresh();
      for (let n = 1; n <= 5; n += 1) await store.customers.create(partnerA, customer(n));
      const first = await store.customers.list(partnerA, {}, { limit: 2 });
      expect(first.items.map((c) => c.serviceCustomerId)).toEqual([customer(5), customer(4)].map((c) => c.serviceCustomerId));
      expect(first.hasMore).toBe(true);
      const second = await store.customers.list(partnerA, {}, { limit: 2, after: first.last });
      const third = await store.customers.list(partnerA, {}, { limit: 2, after: second.last });
      expect([...second.items, ...third.items].map((c) => c.serviceCustomerId)).toEqual([3, 2, 1].map((n) => customer(n).serviceCustomerId));
      expect(third.hasMore).toBe(false);
      expect((await store.customers.list(partnerA, { email: 'PERSON.3@example.com' }, { limit: 10 })).items).toEqual([customer(3)]);
    });

    it("numbers each partner's positions on their own, so a cursor says nothing of another partner", async () => {
      const alone = await fresh();
      await alone.customers.create(partnerB, customer(1));
      const expected = (await alone.customers.list(partnerB, {}, { limit: 1 })).last;
      const busy = await fresh();
      for (let n = 1; n <= 7; n += 1) await busy.customers.create(partnerA, customer(n));
      await busy.customers.create(partnerB, customer(1));
      expect((await busy.customers.list(partnerB, {}, { limit: 1 })).last).toBe(expected);
    });
  });

  describe('companies and documents', () => {
    it('stores a company with its first step, and lists companies by customer, status and type, newest first', async () => {
      const store = await fresh();
      await store.timeline.insert(partnerA, company(1), t0);
      await store.timeline.insert(partnerA, company(2, { status: 'FAILED' }), t0);
      await store.timeline.insert(partnerA, company(4), t0);
      expect(await store.companies.get(partnerA, company(1).serviceCompanyId)).toEqual(company(1));
      expect(await store.companies.get(partnerB, company(1).serviceCompanyId)).toBeUndefined();
      const ids = (page: { items: Company[] }) => page.items.map((c) => c.serviceCompanyId);
      expect(ids(await store.companies.list(partnerA, {}, { limit: 10 }))).toEqual([4, 2, 1].map((n) => company(n).serviceCompanyId));
      expect(ids(await store.companies.list(partnerA, { status: 'FAILED' }, { limit: 10 }))).toEqual([company(2).serviceCompanyId]);
      expect(ids(await store.companies.list(partnerA, { serviceCustomerId: company(1).serviceCustomerId }, { limit: 10 }))).toEqual([4, 1].map((n) => company(n).serviceCompanyId));
      expect(ids(await store.companies.list(partnerA, { entityType: 'CCorp' }, { limit: 10 }))).toEqual([]);
      const paged = await store.companies.list(partnerA, {}, { limit: 1 });
      expect(ids(await store.companies.list(partnerA, {}, { limit: 5, after: paged.last }))).toEqual([2, 1].map((n) => company(n).serviceCompanyId));
      expect((await store.companies.ofCustomer(partnerA, company(1).serviceCustomerId, 1)).map((c) => c.serviceCompanyId)).toEqual([company(4).serviceCompanyId]);
    });

    it("keeps a document's bytes with the step that made it ready, readable by its partner and by id for downloads", async () => {
      const store = await fresh();
      const c = company(1);
      await store.timeline.insert(partnerA, c, t0);
      const [claim] = await store.timeline.claimDue(t0, 1000, 10);
      const documents = [1, 2].map((n) => ({
        document: { documentId: `doc_${String(n).padStart(24, '0')}`, serviceCompanyId: c.serviceCompanyId, type: 'OPERATING_AGREEMENT', fileName: 'a.pdf', contentType: 'application/pdf', sizeBytes: 3, sha256: 'f'.repeat(64), readyAt: new Date(t0).toISOString() },
        file: new Uint8Array([37, 80, n]),
      })) as { document: import('../../../generated/openapi.js').Document; file: Uint8Array }[];
      for (const document of documents) expect(await store.timeline.commit(claim!, { company: c, document, events: [] }, { keep: true }, t0)).toBe(true);
      const listed = await store.documents.list(partnerA, c.serviceCompanyId, { limit: 1 });
      expect(listed.items).toEqual([documents[0]!.document]);
      expect((await store.documents.list(partnerA, c.serviceCompanyId, { limit: 5, after: listed.last })).items).toEqual([documents[1]!.document]);
      const read = await store.documents.get(partnerA, c.serviceCompanyId, documents[1]!.document.documentId);
      expect(read?.document).toEqual(documents[1]!.document);
      expect([...(read?.file ?? [])]).toEqual([37, 80, 2]);
      expect(await store.documents.get(partnerB, c.serviceCompanyId, documents[1]!.document.documentId)).toBeUndefined();
      expect([...((await store.documents.getAnyPartner(c.serviceCompanyId, documents[0]!.document.documentId))?.file ?? [])]).toEqual([37, 80, 1]);
    });
  });

  describe('idempotency', () => {
    it('holds a key in flight, then replays what was stored: text and bytes alike', async () => {
      const store = await fresh();
      expect(await store.idempotency.begin(lock('k1'), 'fp', t0, 10_000)).toEqual({ began: true });
      expect(await store.idempotency.begin(lock('k1', 'owner-2'), 'fp', t0 + 1, 10_000)).toEqual({ began: false, record: { state: 'in-flight', fingerprint: 'fp' } });
      expect(await store.idempotency.complete(lock('k1'), answer, t0)).toBe(true);
      expect(await store.idempotency.begin(lock('k1', 'owner-3'), 'other', t0 + 2, 10_000)).toEqual({ began: false, record: { state: 'done', fingerprint: 'fp', response: answer } });
      await store.idempotency.begin(lock('k2'), 'fp', t0, 10_000);
      await store.idempotency.complete(lock('k2'), { ...answer, body: new Uint8Array([0, 255, 1]) }, t0);
      const bytes = await store.idempotency.begin(lock('k2', 'owner-2'), 'fp', t0, 10_000);
      expect(bytes.began === false && bytes.record.state === 'done' && [...(bytes.record.response.body as Uint8Array)]).toEqual([0, 255, 1]);
    });

    it('gives a key to exactly one of many concurrent requests of one process', async () => {
      const store = await fresh();
      const results = await Promise.all(Array.from({ length: 40 }, (_, n) => store.idempotency.begin(lock('same', `owner-${n}`), 'fp', t0, 10_000)));
      expect(results.filter((result) => result.began)).toHaveLength(1);
    });

    it('keeps holding a key while its answer is being stored, so that a retry meanwhile waits instead of running again', async () => {
      const store = await fresh();
      await store.idempotency.begin(lock('k'), 'fp', t0, 10_000);
      const completing = store.idempotency.complete(lock('k'), answer, t0 + 1);
      const retry = await store.idempotency.begin(lock('k', 'owner-2'), 'fp', t0 + 1, 10_000);
      expect(retry.began).toBe(false);
      expect(await completing).toBe(true);
      expect(await store.idempotency.begin(lock('k', 'owner-3'), 'fp', t0 + 2, 10_000)).toEqual({ began: false, record: { state: 'done', fingerprint: 'fp', response: answer } });
    });

    it('never drops a record still in flight to make room under the cap', async () => {
      const store = await fresh({ idempotencyMaxRecordsPerPartner: 2 });
      await store.idempotency.begin(lock('running'), 'fp', t0, 10_000);
      for (const scope of ['a', 'b', 'c']) {
        await store.idempotency.begin(lock(scope), 'fp', t0 + 1, 10_000);
        await store.idempotency.complete(lock(scope), answer, t0 + 1);
      }
      expect(await store.idempotency.complete(lock('running'), answer, t0 + 2)).toBe(true);
      expect((await store.idempotency.begin(lock('running', 'o2'), 'fp', t0 + 3, 10_000)).began).toBe(false);
    });

    it('lets only the holder complete, renew or abandon a key', async () => {
      const store = await fresh();
      await store.idempotency.begin(lock('k'), 'fp', t0, 10_000);
      expect(await store.idempotency.complete(lock('k', 'intruder'), answer, t0)).toBe(false);
      expect(await store.idempotency.renew(lock('k', 'intruder'), t0, 10_000)).toBe(false);
      await store.idempotency.abandon(lock('k', 'intruder'));
      expect((await store.idempotency.begin(lock('k', 'owner-2'), 'fp', t0, 10_000)).began).toBe(false);
      await store.idempotency.abandon(lock('k'));
      expect((await store.idempotency.begin(lock('k', 'owner-2'), 'fp', t0, 10_000)).began).toBe(true);
    });

    it("frees a key whose holder's lock ran out (a crashed process), unless the holder renewed it", async () => {
      const store = await fresh();
      await store.idempotency.begin(lock('k'), 'fp', t0, 100);
      expect(await store.idempotency.renew(lock('k'), t0 + 50, 100)).toBe(true);
      expect((await store.idempotency.begin(lock('k', 'owner-2'), 'fp', t0 + 120, 100)).began).toBe(false);
      expect((await store.idempotency.begin(lock('k', 'owner-2'), 'fp', t0 + 150, 100)).began).toBe(true);
      expect(await store.idempotency.complete(lock('k'), answer, t0)).toBe(false);
      expect(await store.idempotency.complete(lock('k', 'owner-2'), answer, t0)).toBe(true);
    });

    it('forgets a record once its retention is over', async () => {
      const store = await fresh({ idempotencyTtlMs: 1000 });
      await store.idempotency.begin(lock('k'), 'fp', t0, 100);
      await store.idempotency.complete(lock('k'), answer, t0);
      expect((await store.idempotency.begin(lock('k', 'o2'), 'fp', t0 + 999, 100)).began).toBe(false);
      expect(await store.idempotency.count(partnerA, t0 + 999)).toBe(1);
      expect((await store.idempotency.begin(lock('k', 'o3'), 'fp', t0 + 1000, 100)).began).toBe(true);
    });

    it('drops the oldest of a partner\'s records first, even when several were stored in the same millisecond', async () => {
      const store = await fresh({ idempotencyMaxRecordsPerPartner: 2 });
      for (const scope of ['z-first', 'a-second', 'm-third']) {
        await store.idempotency.begin(lock(scope), 'fp', t0, 10_000);
        await store.idempotency.complete(lock(scope), answer, t0);
      }
      expect((await store.idempotency.begin(lock('z-first', 'o2'), 'fp', t0, 10_000)).began).toBe(true);
      expect((await store.idempotency.begin(lock('m-third', 'o2'), 'fp', t0, 10_000)).began).toBe(false);
    });

    it("caps each partner on its own: one partner's traffic never evicts another's keys", async () => {
      const store = await fresh({ idempotencyMaxRecordsPerPartner: 3 });
      for (const scope of ['a1', 'a2']) {
        await store.idempotency.begin(lock(scope), 'fp', t0, 10_000);
        await store.idempotency.complete(lock(scope), answer, t0);
      }
      for (let n = 0; n < 10; n += 1) {
        await store.idempotency.begin(lock(`b${n}`, 'o', partnerB), 'fp', t0 + n, 10_000);
        await store.idempotency.complete(lock(`b${n}`, 'o', partnerB), answer, t0);
      }
      expect(await store.idempotency.count(partnerA, t0 + 20)).toBe(2);
      expect(await store.idempotency.count(partnerB, t0 + 20)).toBe(3);
      for (const scope of ['a1', 'a2']) expect((await store.idempotency.begin(lock(scope, 'o2'), 'fp', t0 + 20, 100)).began).toBe(false);
      expect((await store.idempotency.begin(lock('b9', 'o2', partnerB), 'fp', t0 + 20, 100)).began).toBe(false);
      expect((await store.idempotency.begin(lock('b0', 'o2', partnerB), 'fp', t0 + 20, 100)).began).toBe(true);
    });

    itShared('gives a key to exactly one of many concurrent requests, across processes', async () => {
      const one = await fresh();
      const two = await second();
      const results = await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 ? one : two).idempotency.begin(lock('same', `owner-${n}`), 'fp', t0, 10_000)));
      expect(results.filter((result) => result.began)).toHaveLength(1);
    });
  });

  describe('the formation timeline', () => {
    it('claims a step once it is due, not before, and not twice while it is held', async () => {
      const store = await fresh();
      await store.timeline.insert(partnerA, company(1), t0 + 100);
      await store.timeline.insert(partnerA, company(2), never);
      expect(await store.timeline.claimDue(t0 + 99, 1000, 10)).toEqual([]);
      const [claim, ...rest] = await store.timeline.claimDue(t0 + 100, 1000, 10);
      expect(rest).toEqual([]);
      expect(claim).toMatchObject({ partnerId: partnerA, companyId: company(1).serviceCompanyId, dueAt: t0 + 100 });
      expect(await store.timeline.claimDue(t0 + 200, 1000, 10)).toEqual([]);
      expect(await store.timeline.claim(partnerA, company(1).serviceCompanyId, t0 + 200, 1000)).toBe('busy');
    });

    it('claims the earliest steps first', async () => {
      const store = await fresh();
      for (const [n, due] of [[1, 30], [2, 10], [3, 20]] as const) await store.timeline.insert(partnerA, company(n), t0 + due);
      expect((await store.timeline.claimDue(t0 + 50, 1000, 2)).map((claim) => claim.companyId)).toEqual([2, 3].map((n) => company(n).serviceCompanyId));
    });

    it('writes the company, its document and its events together, then reschedules or ends the timeline', async () => {
      const store = await fresh();
      const c = company(1);
      await store.timeline.insert(partnerA, c, t0);
      const [claim] = await store.timeline.claimDue(t0, 1000, 1);
      const submitted = { ...c, status: 'SUBMITTED' as const };
      expect(await store.timeline.commit(claim!, { company: submitted, events: [outboxEvent(c.serviceCompanyId)] }, { dueAt: t0 + 500 }, t0 + 1)).toBe(true);
      expect((await store.companies.get(partnerA, c.serviceCompanyId))?.status).toBe('SUBMITTED');
      expect((await store.companies.list(partnerA, { status: 'SUBMITTED' }, { limit: 5 })).items).toHaveLength(1);
      expect((await store.outbox.deliveries(t0 + 1, 100)).map((d) => d.state)).toEqual(['pending']);
      expect(await store.timeline.nextDueAt()).toBe(t0 + 500);
      const [next] = await store.timeline.claimDue(t0 + 500, 1000, 1);
      expect(next?.dueAt).toBe(t0 + 500);
      expect(await store.timeline.commit(next!, undefined, { done: true }, t0 + 501)).toBe(true);
      expect(await store.timeline.nextDueAt()).toBeUndefined();
      expect(await store.timeline.claim(partnerA, c.serviceCompanyId, t0 + 600, 1000)).toBe('none');
    });

    it("writes nothing with a claim that was lost: the holder's lease ran out and another took the step", async () => {
      const store = await fresh();
      const c = company(1);
      await store.timeline.insert(partnerA, c, t0);
      const [stale] = await store.timeline.claimDue(t0, 100, 1);
      const [taken] = await store.timeline.claimDue(t0 + 100, 100, 1);
      expect(taken?.companyId).toBe(c.serviceCompanyId);
      expect(await store.timeline.commit(stale!, { company: { ...c, status: 'FAILED' }, events: [outboxEvent(c.serviceCompanyId)] }, { done: true }, t0 + 150)).toBe(false);
      expect((await store.companies.get(partnerA, c.serviceCompanyId))?.status).toBe('PENDING');
      expect(await store.outbox.deliveries(t0 + 150, 100)).toEqual([]);
      expect(await store.timeline.commit(taken!, undefined, { keep: true }, t0 + 150)).toBe(true);
    });

    it("claims any company's timeline for a simulation, but not another partner's, and keeps a never-due step out of claimDue", async () => {
      const store = await fresh();
      await store.timeline.insert(partnerA, company(1), never);
      expect(await store.timeline.claimDue(t0 + 1e9, 1000, 5)).toEqual([]);
      expect(await store.timeline.claim(partnerB, company(1).serviceCompanyId, t0, 1000)).toBe('none');
      const claim = await store.timeline.claim(partnerA, company(1).serviceCompanyId, t0, 1000);
      expect(claim).toMatchObject({ companyId: company(1).serviceCompanyId, dueAt: never });
      expect(await store.timeline.commit(claim as Exclude<typeof claim, string>, undefined, { dueAt: never }, t0 + 1)).toBe(true);
      expect(await store.timeline.claimDue(t0 + 1e9, 1000, 5)).toEqual([]);
    });

    it('does not report a step that is never due as due once a lease on it runs out (the scheduler would spin)', async () => {
      const store = await fresh();
      await store.timeline.insert(partnerA, company(1), never);
      await store.timeline.claim(partnerA, company(1).serviceCompanyId, t0, 100);
      expect(await store.timeline.nextDueAt()).toBe(never);
    });

    itShared('gives each due step to exactly one of two processes claiming at once', async () => {
      const one = await fresh();
      const two = await second();
      for (let n = 0; n < 20; n += 1) await one.timeline.insert(partnerA, company(n), t0);
      const claims = (await Promise.all([one, two, one, two].map((store) => store.timeline.claimDue(t0, 1000, 20)))).flat();
      expect(claims).toHaveLength(20);
      expect(new Set(claims.map((claim) => claim.companyId)).size).toBe(20);
    });
  });

  describe('the webhook outbox', () => {
    it('delivers a lane in order: only its head is claimed, and the next becomes due once the head is delivered', async () => {
      const store = await fresh();
      const c = companyId('a');
      const events = [outboxEvent(c, 1), outboxEvent(c, 2)];
      await store.outbox.append(events, t0);
      const [head, ...others] = await store.outbox.claim(t0, 1000, 10);
      expect(others).toEqual([]);
      expect(head).toMatchObject({ endpointId: 'default', laneKey: c, eventId: events[0]!.event.id, attempts: 0, roundAttempts: 0, body: JSON.stringify(events[0]!.event) });
      expect(await store.outbox.claim(t0 + 1, 1000, 10)).toEqual([]);
      expect(await store.outbox.settle(head!, { kind: 'delivered' }, attempt(head!, 'delivered'), t0 + 2)).toBe(true);
      const [next] = await store.outbox.claim(t0 + 2, 1000, 10);
      expect(next?.eventId).toBe(events[1]!.event.id);
      expect((await store.outbox.deliveries(t0 + 2, 100)).map((d) => [d.eventId, d.state, d.attempts])).toEqual([
        [events[0]!.event.id, 'delivered', 1],
        [events[1]!.event.id, 'in-flight', 0],
      ]);
    });

    it('takes lanes in the order they became due, so a busy company cannot starve a quiet one', async () => {
      const store = await fresh();
      const [busy, quiet] = [companyId('busy'), companyId('quiet')];
      await store.outbox.append([outboxEvent(busy, 1), outboxEvent(busy, 2)], t0);
      await store.outbox.append([outboxEvent(quiet, 1)], t0 + 1);
      const [first] = await store.outbox.claim(t0 + 5, 1000, 1);
      await store.outbox.settle(first!, { kind: 'delivered' }, attempt(first!, 'delivered'), t0 + 5);
      expect((await store.outbox.claim(t0 + 5, 1000, 1))[0]?.laneKey).toBe(quiet);
    });

    it('retries a failed head at the time given, and journals every attempt', async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      const [claim] = await store.outbox.claim(t0, 1000, 1);
      expect(await store.outbox.settle(claim!, { kind: 'retry', at: t0 + 300 }, attempt(claim!, 'failed'), t0 + 10)).toBe(true);
      expect(await store.outbox.claim(t0 + 299, 1000, 1)).toEqual([]);
      expect(await store.outbox.nextDueAt()).toBe(t0 + 300);
      const [retry] = await store.outbox.claim(t0 + 300, 1000, 1);
      expect(retry).toMatchObject({ eventId: claim!.eventId, attempts: 1, roundAttempts: 1 });
      expect((await store.outbox.attempts(10)).map((a) => a.outcome)).toEqual(['failed']);
    });

    it('journals an event with no endpoint as no-endpoint and queues nothing', async () => {
      const store = await fresh();
      const event = outboxEvent(companyId('a'), 0, []);
      await store.outbox.append([event], t0);
      expect(await store.outbox.claim(t0, 1000, 5)).toEqual([]);
      expect(await store.outbox.attempts(5)).toEqual([expect.objectContaining({ eventId: event.event.id, attempt: 0, outcome: 'no-endpoint' })]);
      expect(await store.outbox.nextDueAt()).toBeUndefined();
    });

    it('gives a lane whose holder died (its lease ran out) to the next claimer, with the same event and bytes', async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      const [lost] = await store.outbox.claim(t0, 100, 1);
      expect(await store.outbox.claim(t0 + 99, 100, 1)).toEqual([]);
      const [again] = await store.outbox.claim(t0 + 100, 100, 1);
      expect(again).toMatchObject({ eventId: lost!.eventId, body: lost!.body });
      expect(await store.outbox.settle(lost!, { kind: 'delivered' }, attempt(lost!, 'delivered'), t0 + 101)).toBe(false);
      expect(await store.outbox.settle(again!, { kind: 'delivered' }, attempt(again!, 'delivered'), t0 + 101)).toBe(true);
    });

    it('takes a lane back at once, counting no attempt, when its holder gives it up (a shutdown)', async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      const [claim] = await store.outbox.claim(t0, 10_000, 1);
      await store.outbox.release(claim!, t0 + 5);
      const [again] = await store.outbox.claim(t0 + 5, 10_000, 1);
      expect(again).toMatchObject({ eventId: claim!.eventId, attempts: 0, roundAttempts: 0 });
      await store.outbox.release(claim!, t0 + 6);
      expect(await store.outbox.claim(t0 + 6, 10_000, 1)).toEqual([]);
      expect(await store.outbox.attempts(5)).toEqual([]);
    });

    it('holds every lane of a disabled endpoint, and on re-enabling sends the notice first, then resumes on a fresh schedule', async () => {
      const store = await fresh();
      const [a, b] = [companyId('a'), companyId('b')];
      await store.outbox.append([outboxEvent(a, 1), outboxEvent(b, 1)], t0);
      const [claimA, claimB] = await store.outbox.claim(t0, 1000, 2);
      expect(await store.outbox.settle(claimA!, { kind: 'disable' }, attempt(claimA!, 'disabled'), t0 + 5)).toBe(true);
      expect(await store.outbox.endpoint('default')).toEqual({ disabled: { at: t0 + 5, reason: 'failures', failedEventId: claimA!.eventId } });
      await store.outbox.settle(claimB!, { kind: 'retry', at: t0 + 6 }, attempt(claimB!, 'failed'), t0 + 5);
      expect(await store.outbox.claim(t0 + 100, 1000, 5)).toEqual([]);
      expect(await store.outbox.nextDueAt()).toBeUndefined();
      expect((await store.outbox.deliveries(t0 + 100, 100)).map((d) => d.state)).toEqual(['held', 'held']);

      const notice = submittedEvent(a, 99);
      const reenabled = await store.outbox.reenable('default', (disabled) => ({ partnerId: '', event: { ...notice, data: { ...notice.data, serviceCustomerId: `cus_${String(disabled.at).padStart(24, '0')}` } }, orderingKey: 'webhook_endpoint', endpointIds: ['default'] }), t0 + 200);
      expect(reenabled).toBe(true);
      expect(await store.outbox.reenable('default', () => { throw new Error('not disabled: not called'); }, t0 + 201)).toBe(false);
      expect(await store.outbox.endpoint('default')).toEqual({});
      const [first, ...held] = await store.outbox.claim(t0 + 200, 1000, 5);
      expect(held).toEqual([]);
      expect(first).toMatchObject({ laneKey: 'webhook_endpoint', eventId: notice.id });
      expect(JSON.parse(first!.body).data.serviceCustomerId).toBe(`cus_${String(t0 + 5).padStart(24, '0')}`);
      await store.outbox.settle(first!, { kind: 'delivered' }, attempt(first!, 'delivered'), t0 + 201);
      const resumed = await store.outbox.claim(t0 + 201, 1000, 5);
      expect(resumed.map((claim) => [claim.laneKey, claim.attempts, claim.roundAttempts])).toEqual([
        [a, 1, 0],
        [b, 1, 0],
      ]);
    });

    it("is next due when its notice is, while the notice waits for a retry: the lanes behind it are not due (no spinning)", async () => {
      const store = await fresh();
      const [a, b] = [companyId('a'), companyId('b')];
      await store.outbox.append([outboxEvent(a, 1), outboxEvent(b, 1)], t0);
      const [claimA, claimB] = await store.outbox.claim(t0, 1000, 2);
      await store.outbox.settle(claimA!, { kind: 'disable' }, attempt(claimA!, 'disabled'), t0 + 5);
      await store.outbox.settle(claimB!, { kind: 'retry', at: t0 + 6 }, attempt(claimB!, 'failed'), t0 + 5);
      const notice = submittedEvent(companyId('n'), 99);
      await store.outbox.reenable('default', () => ({ partnerId: '', event: notice, orderingKey: 'webhook_endpoint', endpointIds: ['default'] }), t0 + 200);
      const [first] = await store.outbox.claim(t0 + 200, 1000, 5);
      expect(first).toMatchObject({ laneKey: 'webhook_endpoint' });
      // Held by its attempt: the endpoint is next due when the lease runs out, not at once (a and b cannot go first).
      expect(await store.outbox.nextDueAt()).toBe(t0 + 200 + 1000);
      // Failed, to be retried a minute later: nothing of the endpoint is due before then.
      await store.outbox.settle(first!, { kind: 'retry', at: t0 + 60_000 }, attempt(first!, 'failed'), t0 + 201);
      expect(await store.outbox.nextDueAt()).toBe(t0 + 60_000);
      expect(await store.outbox.claim(t0 + 30_000, 1000, 5)).toEqual([]);
      const [again, ...rest] = await store.outbox.claim(t0 + 60_000, 1000, 5);
      expect([again?.laneKey, rest]).toEqual(['webhook_endpoint', []]);
      await store.outbox.settle(again!, { kind: 'delivered' }, attempt(again!, 'delivered'), t0 + 60_001);
      // Delivered: the lanes behind it are due as they were placed at the re-enabling.
      expect(await store.outbox.nextDueAt()).toBe(t0 + 200);
      expect((await store.outbox.claim(t0 + 60_001, 1000, 5)).map((claim) => claim.laneKey)).toEqual([a, b]);
    });

    it("puts the latest disablement's notice before older ones still waiting", async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      const notices: string[] = [];
      // Kept by position, not pushed: a backend may run the re-enabling again (Redis, on a read it had not fetched),
      // and the notice stored is the one its last run made.
      const notice = (n: number) => () => {
        const event = submittedEvent(companyId('n'), n);
        notices[n - 1] = event.id;
        return { partnerId: '', event, orderingKey: 'webhook_endpoint', endpointIds: ['default'] };
      };
      const [first] = await store.outbox.claim(t0, 1000, 1);
      await store.outbox.settle(first!, { kind: 'disable' }, attempt(first!, 'disabled'), t0);
      await store.outbox.reenable('default', notice(1), t0 + 1);
      const [firstNotice] = await store.outbox.claim(t0 + 1, 1000, 1);
      await store.outbox.settle(firstNotice!, { kind: 'disable' }, attempt(firstNotice!, 'disabled'), t0 + 2);
      await store.outbox.reenable('default', notice(2), t0 + 3);
      const order: string[] = [];
      for (let at = t0 + 3; order.length < 3; at += 1) {
        const [claim] = await store.outbox.claim(at, 1000, 1);
        order.push(claim!.eventId);
        await store.outbox.settle(claim!, { kind: 'delivered' }, attempt(claim!, 'delivered'), at);
      }
      expect(order).toEqual([notices[1], notices[0], first!.eventId]);
    });

    it('lists the most recently delivered events, however old they are', async () => {
      const store = await fresh({ deliveredCapacity: 2 });
      const events = ['a', 'b', 'c', 'd'].map((label) => outboxEvent(companyId(label)));
      await store.outbox.append(events, t0);
      const claims = await store.outbox.claim(t0, 1000, 4);
      const first = claims.find((claim) => claim.eventId === events[0]!.event.id)!;
      await store.outbox.settle(first, { kind: 'delivered' }, attempt(first, 'delivered'), t0 + 1);
      expect((await store.outbox.deliveries(t0 + 1, 100)).map((d) => [d.eventId, d.state])).toEqual([
        [events[0]!.event.id, 'delivered'],
        ...events.slice(1).map((e) => [e.event.id, 'in-flight']),
      ]);
    });

    it("shows as in flight the delivery a claim took, the newest on an endpoint's own lane", async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      const [claim] = await store.outbox.claim(t0, 1000, 1);
      await store.outbox.settle(claim!, { kind: 'disable' }, attempt(claim!, 'disabled'), t0);
      await store.outbox.append([{ ...outboxEvent(companyId('n'), 1), orderingKey: 'webhook_endpoint' }], t0);
      let notice = '';
      await store.outbox.reenable('default', () => {
        const event = outboxEvent(companyId('n'), 2);
        notice = event.event.id;
        return { ...event, orderingKey: 'webhook_endpoint' };
      }, t0 + 1);
      const [taken] = await store.outbox.claim(t0 + 1, 1000, 1);
      expect(taken?.eventId).toBe(notice);
      expect((await store.outbox.deliveries(t0 + 1, 100)).filter((d) => d.state === 'in-flight').map((d) => d.eventId)).toEqual([notice]);
    });

    it('lists at most the undelivered events asked for, however many wait', async () => {
      const store = await fresh();
      await store.outbox.append(Array.from({ length: 6 }, (_, n) => outboxEvent(companyId(`w${n}x`))), t0);
      expect(await store.outbox.deliveries(t0, 4)).toHaveLength(4);
    });

    it('keeps only the newest delivered events and journal lines', async () => {
      const store = await fresh({ deliveredCapacity: 2, attemptsKeptPerPartner: 3 });
      const c = companyId('a');
      const events = Array.from({ length: 5 }, (_, n) => outboxEvent(c, n));
      await store.outbox.append(events, t0);
      for (let n = 0; n < 5; n += 1) {
        const [claim] = await store.outbox.claim(t0 + n, 1000, 1);
        await store.outbox.settle(claim!, { kind: 'delivered' }, attempt(claim!, 'delivered'), t0 + n);
      }
      expect((await store.outbox.deliveries(t0 + 10, 100)).map((d) => d.eventId)).toEqual(events.slice(-2).map((e) => e.event.id));
      expect((await store.outbox.attempts(10)).map((a) => a.eventId)).toEqual(events.slice(-3).map((e) => e.event.id));
    });

    itShared('gives each lane to one of two processes claiming at once', async () => {
      const one = await fresh();
      const two = await second();
      await one.outbox.append(Array.from({ length: 12 }, (_, n) => outboxEvent(companyId(`l${n}x`))), t0);
      const claims = (await Promise.all([one, two, one, two].map((store) => store.outbox.claim(t0, 1000, 12)))).flat();
      expect(claims.map((claim) => claim.laneKey).sort()).toEqual(Array.from({ length: 12 }, (_, n) => companyId(`l${n}x`)).sort());
    });

    it('holds the events of an endpoint disabled on request, and re-enables it without a notice when the notice maker makes none', async () => {
      const store = await fresh();
      await store.outbox.disable('default', t0);
      expect(await store.outbox.endpoint('default')).toEqual({ disabled: { at: t0, reason: 'requested', failedEventId: null } });
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      expect(await store.outbox.claim(t0 + 1, 1000, 5)).toEqual([]);
      expect((await store.outbox.deliveries(t0 + 1, 100)).map((d) => d.state)).toEqual(['held']);
      let seen: unknown;
      expect(await store.outbox.reenable('default', (disabled) => ((seen = disabled), undefined), t0 + 2)).toBe(true);
      expect(seen).toEqual({ at: t0, reason: 'requested', failedEventId: null });
      const claims = await store.outbox.claim(t0 + 2, 1000, 5);
      expect(claims.map((claim) => claim.laneKey)).toEqual([companyId('a')]);
    });

    it("forgets what an endpoint that goes away leaves, delivered or waiting, and nothing of another endpoint's", async () => {
      const store = await fresh();
      await store.outbox.append([outboxEvent(companyId('d'), 0, ['gone'])], t0);
      const [delivered] = await store.outbox.claim(t0, 1000, 1);
      await store.outbox.settle(delivered!, { kind: 'delivered' }, attempt(delivered!, 'delivered'), t0);
      await store.outbox.append([outboxEvent(companyId('a'), 1, ['gone', 'kept'])], t0);
      await store.outbox.disable('gone', t0);
      await store.outbox.forgetEndpoint('gone');
      const [, first] = (await store.outbox.events(partnerA, { limit: 5 }, t0 + 1)).items;
      expect(first?.deliveries).toEqual([]);
      expect(await store.outbox.endpoint('gone')).toEqual({});
      expect((await store.outbox.claim(t0 + 1, 1000, 5)).map((claim) => claim.endpointId)).toEqual(['kept']);
      expect((await store.outbox.deliveries(t0 + 1, 100)).map((d) => d.endpointId)).toEqual(['kept']);
      const [listed] = (await store.outbox.events(partnerA, { limit: 5 }, t0 + 1)).items;
      expect(listed?.deliveries.map((delivery) => delivery.endpointId)).toEqual(['kept']);
    });

    it("lists a partner's events newest first, a page at a time, with each endpoint's state and attempts", async () => {
      const store = await fresh();
      const events = [1, 2, 3].map((n) => outboxEvent(companyId(`e${n}x`), n, ['one', 'two']));
      await store.outbox.append(events, t0);
      await store.outbox.append([outboxEvent(companyId('b'), 9, ['one'], partnerB)], t0);
      const [claim] = (await store.outbox.claim(t0, 1000, 10)).filter((c) => c.eventId === events[0]!.event.id && c.endpointId === 'one');
      await store.outbox.settle(claim!, { kind: 'retry', at: t0 + 100 }, attempt(claim!, 'failed'), t0 + 1);
      const first = await store.outbox.events(partnerA, { limit: 2 }, t0 + 2);
      expect(first.items.map((e) => e.id)).toEqual([events[2]!.event.id, events[1]!.event.id]);
      expect(first.next).toBeDefined();
      const second = await store.outbox.events(partnerA, { limit: 2, before: first.next }, t0 + 2);
      expect(second.next).toBeUndefined();
      const oldest = second.items[0]!;
      expect(oldest).toMatchObject({ id: events[0]!.event.id, type: 'company.formation.submitted', orderingKey: companyId('e1x'), createdAt: t0, body: JSON.stringify(events[0]!.event) });
      expect(oldest.deliveries.map((d) => [d.endpointId, d.state, d.attempts.map((a) => a.outcome)])).toEqual([
        ['one', 'pending', ['failed']],
        ['two', 'in-flight', []],
      ]);
      expect((await store.outbox.events(partnerA, { limit: 10, type: 'document.ready' }, t0)).items).toEqual([]);
      expect((await store.outbox.events(partnerB, { limit: 10 }, t0)).items.map((e) => e.id)).toEqual([expect.any(String)]);
      expect((await store.outbox.deliveries(t0 + 2, 100, partnerB)).map((d) => d.endpointId)).toEqual(['one']);
      expect(await store.outbox.attempts(10, partnerB)).toEqual([]);
      expect((await store.outbox.attempts(10, partnerA)).map((a) => a.eventId)).toEqual([events[0]!.event.id]);
    });

    it('redelivers an event to an endpoint: the same bytes under the same id, after what waits in its lane, on a fresh schedule', async () => {
      const store = await fresh();
      const c = companyId('r');
      const [first, second] = [outboxEvent(c, 1), outboxEvent(c, 2)];
      await store.outbox.append([first!], t0);
      const [claim] = await store.outbox.claim(t0, 1000, 1);
      await store.outbox.settle(claim!, { kind: 'delivered' }, attempt(claim!, 'delivered'), t0 + 1);
      await store.outbox.append([second!], t0 + 2);
      expect(await store.outbox.redeliver(partnerA, first!.event.id, 'default', t0 + 3)).toBe('queued');
      expect(await store.outbox.redeliver(partnerB, first!.event.id, 'default', t0 + 3)).toBe('unknown');
      const order: LaneClaim[] = [];
      for (let at = t0 + 3; order.length < 2; at += 1) {
        const [next] = await store.outbox.claim(at, 1000, 1);
        order.push(next!);
        await store.outbox.settle(next!, { kind: 'delivered' }, attempt(next!, 'delivered'), at);
      }
      expect(order.map((c) => [c.eventId, c.body, c.attempts])).toEqual([
        [second!.event.id, JSON.stringify(second!.event), 0],
        [first!.event.id, JSON.stringify(first!.event), 0],
      ]);
      const listed = (await store.outbox.events(partnerA, { limit: 5 }, t0 + 10)).items.find((e) => e.id === first!.event.id);
      expect(listed?.deliveries).toEqual([{ endpointId: 'default', state: 'delivered', attempts: [expect.objectContaining({ outcome: 'delivered' }), expect.objectContaining({ outcome: 'delivered' })] }]);
    });

    it("keeps each partner's events and attempts within its own capacity: another partner's never push them out", async () => {
      const store = await fresh({ eventsKeptPerPartner: 2, attemptsKeptPerPartner: 2 });
      const theirs = [1, 2].map((n) => outboxEvent(companyId(`b${n}x`), n, [], partnerB));
      await store.outbox.append(theirs, t0);
      for (let n = 1; n <= 6; n += 1) await store.outbox.append([outboxEvent(companyId(`a${n}x`), n, [])], t0 + n);
      expect((await store.outbox.events(partnerB, { limit: 10 }, t0 + 10)).items.map((e) => e.id)).toEqual(theirs.map((e) => e.event.id).reverse());
      expect((await store.outbox.attempts(10, partnerB)).map((a) => a.eventId)).toEqual(theirs.map((e) => e.event.id));
      expect((await store.outbox.events(partnerA, { limit: 10 }, t0 + 10)).items.map((e) => e.orderingKey)).toEqual([companyId('a6x'), companyId('a5x')]);
      expect(await store.outbox.attempts(10, partnerA)).toHaveLength(2);
    });

    it("drops past a partner's queue cap that partner's deliveries only, saying so, and queues no redelivery past it", async () => {
      const dropped: string[] = [];
      const store = await fresh({ maxQueuedPerPartner: 2, onDropped: (event) => dropped.push(event.partnerId) });
      await store.outbox.disable('off', t0);
      const mine = [1, 2, 3].map((n) => outboxEvent(companyId(`h${n}x`), n, ['off']));
      await store.outbox.append(mine, t0);
      await store.outbox.append([outboxEvent(companyId('b'), 9, ['on'], partnerB)], t0);
      expect((await store.outbox.deliveries(t0, 10, partnerB)).map((d) => [d.endpointId, d.state])).toEqual([['on', 'pending']]);
      expect((await store.outbox.deliveries(t0, 10, partnerA)).map((d) => d.state)).toEqual(['held', 'held']);
      expect(dropped).toEqual([partnerA]);
      // The one dropped is listed so, with a line in the delivery journal; a redelivery past the cap is refused, unwritten.
      const third = (await store.outbox.events(partnerA, { limit: 10 }, t0 + 1)).items.find((e) => e.id === mine[2]!.event.id);
      expect(third?.deliveries).toEqual([{ endpointId: 'off', state: 'dropped', attempts: [expect.objectContaining({ endpointId: 'off', attempt: 0, outcome: 'dropped' })] }]);
      expect((await store.outbox.attempts(10, partnerA)).map((a) => [a.eventId, a.outcome])).toEqual([[mine[2]!.event.id, 'dropped']]);
      expect(await store.outbox.redeliver(partnerA, mine[0]!.event.id, 'on', t0 + 2)).toBe('full');
      expect(await store.outbox.attempts(10, partnerA)).toHaveLength(1);
      expect(await store.outbox.redeliver(partnerB, mine[0]!.event.id, 'on', t0 + 2)).toBe('unknown');
    });

    it('claims endpoint by endpoint within their free slots: a busy endpoint never keeps another waiting', async () => {
      const store = await fresh();
      await store.outbox.append([1, 2, 3, 4, 5].map((n) => outboxEvent(companyId(`s${n}x`), n, ['slow'])), t0);
      await store.outbox.append([outboxEvent(companyId('f'), 9, ['fast'], partnerB)], t0 + 1);
      const noPartnerBound = { perPartner: 100, inFlightByPartner: new Map<string, number>() };
      const busy = { perEndpoint: 2, inFlight: new Map([['slow', 2]]), ...noPartnerBound };
      expect((await store.outbox.claim(t0 + 5, 1000, 10, busy)).map((c) => c.endpointId)).toEqual(['fast']);
      // Only the lease of the lane just claimed counts: the busy endpoint's lanes wait for one of its attempts to end.
      expect(await store.outbox.nextDueAt(busy)).toBe(t0 + 5 + 1000);
      expect(await store.outbox.nextDueAt()).toBe(t0);
      const free = { perEndpoint: 2, inFlight: new Map<string, number>(), ...noPartnerBound };
      expect((await store.outbox.claim(t0 + 5, 1000, 10, free)).map((c) => [c.endpointId, c.laneKey])).toEqual([
        ['slow', companyId('s1x')],
        ['slow', companyId('s2x')],
      ]);
    });

    it("claims within each partner's share of the slots: a partner's many busy endpoints never hold them all", async () => {
      const store = await fresh();
      for (const endpoint of ['a1', 'a2', 'a3']) await store.outbox.append([1, 2, 3].map((n) => outboxEvent(companyId(`${endpoint}${n}x`), n, [endpoint])), t0);
      await store.outbox.append([outboxEvent(companyId('b'), 9, ['b1'], partnerB)], t0 + 1);
      const slots = { perEndpoint: 4, inFlight: new Map<string, number>(), perPartner: 4, inFlightByPartner: new Map([[partnerA, 1]]) };
      const claimed = await store.outbox.claim(t0 + 5, 1000, 64, slots);
      expect(claimed.filter((c) => c.partnerId === partnerA)).toHaveLength(3);
      expect(claimed.filter((c) => c.partnerId === partnerB).map((c) => c.endpointId)).toEqual(['b1']);
      // Partner A at its share: its lanes still due do not make the dispatcher poll, only B's lease does.
      const full = { ...slots, inFlightByPartner: new Map([[partnerA, 4]]) };
      expect(await store.outbox.nextDueAt(full)).toBe(t0 + 5 + 1000);
    });

    it('stores an event from outside once per endpoint it was sent to: each endpoint gets it once, whichever came first', async () => {
      const store = await fresh();
      const relayed = (endpointIds: string[], partnerId = partnerA) => ({ ...outboxEvent(companyId('rel'), 1, endpointIds, partnerId), orderingKey: `relay:${companyId('rel')}` });
      const event = relayed(['one']);
      expect(await store.outbox.storeFromOutside(event, t0)).toBe('queued');
      expect(await store.outbox.storeFromOutside(event, t0 + 1)).toBe('duplicate');
      const second = { ...event, endpointIds: ['two'] };
      expect(await store.outbox.storeFromOutside(second, t0 + 2)).toBe('queued');
      expect(await store.outbox.storeFromOutside(second, t0 + 3)).toBe('duplicate');
      // For no endpoint (one that takes no events of its type): kept, and still queued for an endpoint that does.
      expect(await store.outbox.storeFromOutside({ ...event, endpointIds: [] }, t0 + 4)).toBe('kept');
      // Another partner's event of the same id is its own.
      expect(await store.outbox.storeFromOutside({ ...event, partnerId: partnerB, endpointIds: ['b'] }, t0 + 5)).toBe('queued');
      const listed = (await store.outbox.events(partnerA, { limit: 10 }, t0 + 6)).items;
      expect(listed.map((e) => [e.id, e.body])).toEqual([[event.event.id, JSON.stringify(event.event)]]);
      expect(listed[0]?.deliveries.map((d) => d.endpointId).sort()).toEqual(['one', 'two']);
      const claims = await store.outbox.claim(t0 + 6, 1000, 10);
      expect(claims.map((c) => [c.partnerId, c.endpointId, c.eventId]).sort()).toEqual([
        [partnerA, 'one', event.event.id],
        [partnerA, 'two', event.event.id],
        [partnerB, 'b', event.event.id],
      ]);
      // Delivered, it is still a duplicate for that endpoint; a redelivery asked for is not one.
      const [toOne] = claims.filter((c) => c.endpointId === 'one');
      await store.outbox.settle(toOne!, { kind: 'delivered' }, attempt(toOne!, 'delivered'), t0 + 7);
      expect(await store.outbox.storeFromOutside(event, t0 + 8)).toBe('duplicate');
    });

    it("answers dropped, not queued, for an event from outside past its partner's queue cap", async () => {
      const store = await fresh({ maxQueuedPerPartner: 1 });
      await store.outbox.disable('off', t0);
      await store.outbox.append([outboxEvent(companyId('full'), 1, ['off'])], t0);
      const event = { ...outboxEvent(companyId('rel'), 2, ['one']), orderingKey: `relay:${companyId('rel')}` };
      expect(await store.outbox.storeFromOutside(event, t0 + 1)).toBe('dropped');
      // Sent again once there is room, it is queued: nothing was taken for delivered.
      await store.outbox.forgetEndpoint('off');
      expect(await store.outbox.storeFromOutside(event, t0 + 2)).toBe('queued');
    });

    itDurable('remembers across a restart which endpoints an event from outside was queued for', async () => {
      const store = await fresh();
      const event = { ...outboxEvent(companyId('rel'), 1, ['one']), orderingKey: `relay:${companyId('rel')}` };
      expect(await store.outbox.storeFromOutside(event, t0)).toBe('queued');
      await store.close();
      const again = await reopened();
      expect(await again.outbox.storeFromOutside(event, t0 + 1)).toBe('duplicate');
      expect(await again.outbox.storeFromOutside({ ...event, endpointIds: ['two'] }, t0 + 2)).toBe('queued');
    });

    it('keeps the newest events once delivered, up to its capacity, and every undelivered one', async () => {
      const store = await fresh({ eventsKeptPerPartner: 2 });
      await store.outbox.append([outboxEvent(companyId('held'), 0, ['off'])], t0);
      await store.outbox.disable('off', t0);
      for (let n = 1; n <= 4; n += 1) await store.outbox.append([outboxEvent(companyId(`k${n}x`), n, [])], t0 + n);
      const kept = (await store.outbox.events(partnerA, { limit: 10 }, t0 + 10)).items.map((e) => e.orderingKey);
      expect(kept).toContain(companyId('held'));
      expect(kept).toContain(companyId('k4x'));
      expect(kept).not.toContain(companyId('k1x'));
    });
  });

  describe('webhook endpoints', () => {
    const endpoint = (id: string, partnerId = partnerA) => ({
      id,
      partnerId,
      url: `https://hooks.example.com/${id}`,
      description: null,
      enabledEvents: ['*'],
      secrets: [{ secret: `whsec_${Buffer.from(id).toString('base64')}`, expiresAt: null }],
      createdAt: t0,
      updatedAt: t0,
    });

    it("stores a partner's endpoints up to the limit, and keeps partners apart", async () => {
      const store = await fresh();
      expect(await store.webhookEndpoints.create(endpoint('we_1'), 2)).toBe(true);
      expect(await store.webhookEndpoints.create(endpoint('we_2'), 2)).toBe(true);
      expect(await store.webhookEndpoints.create(endpoint('we_3'), 2)).toBe(false);
      expect(await store.webhookEndpoints.create(endpoint('we_b', partnerB), 2)).toBe(true);
      expect((await store.webhookEndpoints.list(partnerA)).map((e) => e.id)).toEqual(['we_1', 'we_2']);
      expect(await store.webhookEndpoints.get(partnerA, 'we_1')).toEqual(endpoint('we_1'));
      expect(await store.webhookEndpoints.get(partnerB, 'we_1')).toBeUndefined();
      expect(await store.webhookEndpoints.find('we_b')).toEqual(endpoint('we_b', partnerB));
    });

    it('updates an endpoint but never its creation time, and not through another partner', async () => {
      const store = await fresh();
      await store.webhookEndpoints.create(endpoint('we_1'), 5);
      const changed = { ...endpoint('we_1'), url: 'https://hooks.example.com/new', enabledEvents: ['document.ready'], createdAt: t0 + 99, updatedAt: t0 + 5 };
      expect(await store.webhookEndpoints.update(changed)).toEqual({ ...changed, createdAt: t0 });
      expect(await store.webhookEndpoints.get(partnerA, 'we_1')).toEqual({ ...changed, createdAt: t0 });
      expect(await store.webhookEndpoints.update({ ...changed, partnerId: partnerB })).toBeUndefined();
    });

    it('deletes an endpoint with what waits for it, only for its partner', async () => {
      const store = await fresh();
      await store.webhookEndpoints.create(endpoint('we_1'), 5);
      await store.outbox.append([outboxEvent(companyId('a'), 1, ['we_1'])], t0);
      expect(await store.webhookEndpoints.delete(partnerB, 'we_1')).toBe(false);
      expect(await store.webhookEndpoints.delete(partnerA, 'we_1')).toBe(true);
      expect(await store.webhookEndpoints.list(partnerA)).toEqual([]);
      expect(await store.outbox.claim(t0 + 1, 1000, 5)).toEqual([]);
    });

    it("counts the refusals of an endpoint's relay, keeps the last, and forgets them when told or when the endpoint goes", async () => {
      const store = await fresh();
      await store.webhookEndpoints.create(endpoint('we_1'), 5);
      await store.webhookEndpoints.create(endpoint('we_2'), 5);
      const refusal = (at: number, signature: 'missing' | 'invalid') => ({ at, signature, reason: `refused at ${at}` });
      await Promise.all([store.webhookEndpoints.countRelayRefusal('we_1', refusal(t0, 'missing')), store.webhookEndpoints.countRelayRefusal('we_2', refusal(t0, 'missing'))]);
      await store.webhookEndpoints.countRelayRefusal('we_1', refusal(t0 + 1, 'invalid'));
      expect(await store.webhookEndpoints.relayRefusals('we_1')).toEqual({ count: 2, last: refusal(t0 + 1, 'invalid') });
      // An endpoint that went meanwhile is not counted for.
      await store.webhookEndpoints.countRelayRefusal('we_gone', refusal(t0, 'missing'));
      expect(await store.webhookEndpoints.relayRefusals('we_gone')).toEqual({ count: 0, last: null });
      await store.webhookEndpoints.forgetRelayRefusals('we_1');
      expect(await store.webhookEndpoints.relayRefusals('we_1')).toEqual({ count: 0, last: null });
      await store.webhookEndpoints.delete(partnerA, 'we_2');
      await store.webhookEndpoints.create(endpoint('we_2'), 5);
      expect(await store.webhookEndpoints.relayRefusals('we_2')).toEqual({ count: 0, last: null });
    });

    it("goes with its partner's reset", async () => {
      const store = await fresh();
      await store.webhookEndpoints.create(endpoint('we_1'), 5);
      await store.webhookEndpoints.create(endpoint('we_b', partnerB), 5);
      await store.reset(partnerA);
      expect(await store.webhookEndpoints.find('we_1')).toBeUndefined();
      expect(await store.webhookEndpoints.find('we_b')).toBeDefined();
      await store.reset();
      expect(await store.webhookEndpoints.find('we_b')).toBeUndefined();
    });
  });

  describe('transactions', () => {
    it('does what a body asks after its commit once, however often the body ran, and never for a body that failed', async () => {
      const store = await fresh();
      const probe = table<number>('probe_effects');
      const told: string[] = [];
      let runs = 0;
      await store.store.write((tx) => {
        runs += 1;
        // A number from a counter: on Redis the body runs again once it is fetched.
        tx.put(probe, 'x', tx.allocate('probe_effects'));
        tx.afterCommit(() => told.push('made'));
      });
      await expect(
        store.store.write((tx) => {
          tx.afterCommit(() => told.push('failed'));
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(told).toEqual(['made']);
      expect(runs).toBeGreaterThanOrEqual(1);
    });

    it('tells its listeners the channels a committed body noticed, each once, and nothing of a body that failed', async () => {
      const store = await fresh();
      const probe = table<number>('probe_notices');
      const heard: string[][] = [];
      const stop = store.store.listen((channels) => heard.push([...channels].sort()));
      await store.store.write((tx) => {
        tx.put(probe, 'x', tx.allocate('probe_notices'));
        tx.notify('companies:a');
        tx.notify('events:a');
        tx.notify('companies:a');
      });
      await expect(
        store.store.write((tx) => {
          tx.notify('customers:a');
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await store.store.write((tx) => tx.put(probe, 'y', 1));
      expect(heard).toEqual([['companies:a', 'events:a']]);
      await store.store.clear([]);
      expect(heard.at(-1)).toEqual(['*']);
      stop();
      await store.store.write((tx) => tx.notify('companies:b'));
      expect(heard).toHaveLength(2);
      await expect(store.store.read((tx) => tx.notify('companies:a'))).rejects.toThrow(/read transaction cannot notify/);
    });

    // Across processes through Redis's own pub/sub: the fake remote store has none.
    (backend.name === 'redis' ? it : it.skip)("tells another process's listeners what this one committed, within a moment", async () => {
      const first = await fresh();
      const other = await second();
      const heard: string[] = [];
      other.store.listen((channels) => heard.push(...channels));
      const own: string[] = [];
      first.store.listen((channels) => own.push(...channels));
      // The other's subscription is made as it starts listening: a notice before it is ready may be missed.
      await eventually(async () => {
        await first.store.write((tx) => tx.notify('companies:a'));
        return heard.includes('companies:a') || undefined;
      }, 5_000, 'the other process to hear the notice');
      // A process hears its own once, at its commit, not again from the store.
      const before = own.length;
      await first.store.write((tx) => tx.notify('faults:x'));
      await eventually(async () => heard.includes('faults:x') || undefined, 5_000, 'the second notice');
      expect(own.length - before).toBe(1);
    });
  });

  describe('the request journal', () => {
    it('reads newest pages first, each oldest first, and follows next to older ones', async () => {
      const store = await fresh();
      await store.journal.append(Array.from({ length: 5 }, (_, n) => request(n)));
      const first = await store.journal.page({ limit: 2 });
      expect(first.entries.map((e) => e.requestId)).toEqual(['req_3', 'req_4']);
      const second = await store.journal.page({ limit: 2, before: first.next });
      const third = await store.journal.page({ limit: 2, before: second.next });
      expect([...third.entries, ...second.entries].map((e) => e.requestId)).toEqual(['req_0', 'req_1', 'req_2']);
      expect(third.next).toBeUndefined();
      expect(first.entries[0]).toMatchObject({ ...request(3), id: expect.any(Number) });
    });

    it('filters by operation, status and partner, examining at most ten times the page', async () => {
      const store = await fresh();
      await store.journal.append([request(0, { status: 404 }), ...Array.from({ length: 30 }, (_, n) => request(n + 1)), request(31, { partnerId: partnerB })]);
      const page = await store.journal.page({ limit: 2, status: 404 });
      expect(page.entries).toEqual([]);
      expect(page.next).toBeDefined();
      let found: string[] = [];
      for (let cursor: number | undefined = page.next; cursor !== undefined; ) {
        const next = await store.journal.page({ limit: 2, status: 404, before: cursor });
        found = [...found, ...next.entries.map((e) => e.requestId)];
        cursor = next.next;
      }
      expect(found).toEqual(['req_0']);
      expect((await store.journal.page({ limit: 5, partnerId: partnerB })).entries.map((e) => e.requestId)).toEqual(['req_31']);
      expect((await store.journal.page({ limit: 1, operationId: 'getCustomer' })).entries.map((e) => e.requestId)).toEqual(['req_31']);
    });

    it('skips a chunk it cannot read (damaged on disk), and reads the rest', async () => {
      const store = await fresh();
      await store.journal.append([request(0)]);
      // Another batch, stored after the first, whose bytes are not the JSON the journal writes.
      const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
      await store.store.write((tx) => tx.put(chunks, key(1_000), new Uint8Array(Buffer.from('{"not a chunk'))));
      await store.journal.append([request(1)]);
      expect((await store.journal.page({ limit: 10 })).entries.map((e) => e.requestId)).toEqual(['req_0', 'req_1']);
    });

    it('keeps a large batch compressed, counts its JSON against the budget, and rewrites it compressed on a reset', async () => {
      const store = await fresh();
      const batch = Array.from({ length: 900 }, (_, n) => request(n, n % 3 === 0 ? { partnerId: partnerB } : {}));
      await store.journal.append(batch);
      const json = batch.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(record)) + 1, 1);
      const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
      const totals = table<number>('journal_totals');
      const stored = async () => (await store.store.read((tx) => tx.scan(chunks, within([], { limit: 100 })))).reduce((sum, entry) => sum + (entry.value as Uint8Array).byteLength, 0);
      expect(await stored()).toBeLessThan(json / 5);
      expect(await store.store.read((tx) => tx.get(totals, 'chunk_bytes'))).toBe(json);
      expect((await store.journal.page({ limit: 900 })).entries.map(({ id: _id, ...entry }) => entry)).toEqual(batch);
      while (!(await store.store.write((tx) => forgetRequests(tx, partnerA, 1))));
      const left = batch.filter((record) => record.partnerId === partnerB);
      expect((await store.journal.page({ limit: 900 })).entries.map((entry) => entry.requestId)).toEqual(left.map((record) => record.requestId));
      // The chunk rewritten with its holes: compressed still, and the budget counts what is left of its JSON.
      expect(await stored()).toBeLessThan(json / 15);
      const rewritten = Buffer.byteLength(JSON.stringify(batch.map((record) => (record.partnerId === partnerB ? record : null))));
      expect(await store.store.read((tx) => tx.get(totals, 'chunk_bytes'))).toBe(rewritten);
    });

    it('reads a large chunk stored as plain JSON, and skips a compressed one that is damaged', async () => {
      const store = await fresh();
      const chunks = table<Uint8Array>('journal_chunks', { ordered: true, bytes: true });
      const plain = Array.from({ length: 200 }, (_, n) => request(n));
      await store.store.write((tx) => tx.put(chunks, key(0), new Uint8Array(Buffer.from(JSON.stringify(plain)))));
      await store.store.write((tx) => tx.put(chunks, key(200), new Uint8Array([1, 0, 1, 0, 0, 0x6b, 0x6a, 0x69])));
      await store.store.write((tx) => tx.allocate('journal', 201));
      await store.journal.append([request(201)]);
      expect((await store.journal.page({ limit: 300 })).entries.map((entry) => entry.requestId)).toEqual([...plain, request(201)].map((record) => record.requestId));
    });

    it('stays within its byte budget, dropping the oldest entries', async () => {
      const store = await fresh({ journalMaxBytes: 4096 });
      await store.journal.append(Array.from({ length: 40 }, (_, n) => request(n, { path: `/v1/partner/customers/${'x'.repeat(200)}${n}` })));
      let kept = 0;
      let oldest = '';
      for (let cursor: number | undefined, first = true; first || cursor !== undefined; first = false) {
        const page = await store.journal.page({ limit: 100, before: cursor });
        kept += page.entries.length;
        oldest = page.entries[0]?.requestId ?? oldest;
        cursor = page.next;
      }
      expect(kept).toBeGreaterThan(3);
      expect(kept).toBeLessThan(40);
      expect(oldest).toBe(`req_${40 - kept}`);
    });

    it("makes room from the partner holding the most: another partner's traffic never pushes out a quieter one's requests", async () => {
      const store = await fresh({ journalMaxBytes: 8192 });
      const long = (n: number, overrides: Partial<RequestRecord> = {}) => request(n, { path: `/v1/partner/customers/${'x'.repeat(200)}${n}`, ...overrides });
      await store.journal.append([0, 1, 2].map((n) => long(n, { partnerId: partnerB, requestId: `b_${n}` })));
      for (let n = 10; n < 110; n += 1) await store.journal.append([long(n)]);
      const all = async (query: { partnerId?: string } = {}) => {
        const ids: string[] = [];
        for (let cursor: number | undefined, first = true; first || cursor !== undefined; first = false) {
          const page = await store.journal.page({ limit: 100, before: cursor, ...query });
          ids.unshift(...page.entries.map((e) => e.requestId));
          cursor = page.next;
        }
        return ids;
      };
      expect(await all({ partnerId: partnerB })).toEqual(['b_0', 'b_1', 'b_2']);
      const mine = await all({ partnerId: partnerA });
      expect(mine.length).toBeGreaterThan(3);
      expect(mine.at(-1)).toBe('req_109');
      expect(mine[0]).toBe(`req_${110 - mine.length}`);
      // Within budget, the whole journal: the noisy partner's share went, not the budget's bound.
      expect((await all()).length).toBe(mine.length + 3);
    });

    it("keeps an active partner's newest requests up to its share of the budget, however many keys another sends from", async () => {
      const maxBytes = 256 * 1024;
      const store = await fresh({ journalMaxBytes: maxBytes });
      let n = 0;
      const rounds = 300;
      for (let round = 0; round < rounds; round += 1) {
        // A batch as the journal writes one: B's request among a flood from keys never seen before, a request each.
        const flood = Array.from({ length: 8 }, () => request((n += 1), { partnerId: `p${String(n).padStart(6, '0')}` }));
        await store.journal.append([request((n += 1), { partnerId: partnerB, requestId: `b_${String(round).padStart(3, '0')}` }), ...flood]);
      }
      const kept: string[] = [];
      for (let cursor: number | undefined, first = true; first || cursor !== undefined; first = false) {
        const page = await store.journal.page({ limit: 100, before: cursor, partnerId: partnerB });
        kept.unshift(...page.entries.map((e) => e.requestId));
        cursor = page.next;
      }
      const bytesEach = Buffer.byteLength(JSON.stringify(request(n, { partnerId: partnerB, requestId: 'b_000' }))) + 1;
      const guaranteed = Math.floor((maxBytes * partnerShare) / bytesEach);
      expect(guaranteed).toBeGreaterThan(5);
      // Its newest, as many as its share holds at least.
      expect(kept.length).toBeGreaterThanOrEqual(guaranteed);
      expect(kept.slice(-guaranteed)).toEqual(Array.from({ length: guaranteed }, (_, i) => `b_${String(rounds - guaranteed + i).padStart(3, '0')}`));
    });

    it('indexes the partners of a journal kept from before its indexes at its next append: one over its share gives first', async () => {
      const maxBytes = 64 * 1024;
      const store = await fresh({ journalMaxBytes: maxBytes });
      const long = (n: number) => request(n, { path: `/v1/partner/customers/${'x'.repeat(200)}${n}`, partnerId: partnerB, requestId: `b_${n}` });
      await store.journal.append(Array.from({ length: 100 }, (_, n) => long(n)));
      // As an older version kept it: counts and chunks, and no index of who is over its share or active when.
      const over = table<number>('journal_scopes_over', { ordered: true });
      const recency = table<number>('journal_scope_recency', { ordered: true });
      await store.store.write((tx) => {
        for (const entry of tx.scan(over, within([], { limit: 1000 }))) tx.delete(over, entry.key);
        for (const entry of tx.scan(recency, within([], { limit: 1000 }))) tx.delete(recency, entry.key);
        tx.delete(table<number>('journal_scope_newest'), partnerB);
        tx.delete(table<number>('journal_totals'), 'scopes_indexed');
      });
      for (let n = 0; n < 200; n += 1) await store.journal.append([request(1000 + n, { partnerId: `p${String(n).padStart(4, '0')}` })]);
      const held = new Map<string, number>();
      for (let cursor: number | undefined, first = true; first || cursor !== undefined; first = false) {
        const page = await store.journal.page({ limit: 100, before: cursor });
        for (const entry of page.entries) held.set(entry.partnerId ?? '', (held.get(entry.partnerId ?? '') ?? 0) + 1);
        cursor = page.next;
      }
      // B, far over its share, gave the room: every fresh key kept its request (unindexed, B kept all its requests and
      // the fresh keys pushed each other out).
      expect(held.size - (held.has(partnerB) ? 1 : 0)).toBe(200);
      expect(held.get(partnerB)).toBeLessThan(100);
    });

    it('counts only the partners whose requests it holds: a key whose requests all went is read no more while making room', async () => {
      const store = await fresh({ journalMaxBytes: 8192 });
      // A partner using a new key per request: each its own scope, each soon pushed out.
      for (let n = 0; n < 150; n += 1) await store.journal.append([request(n, { partnerId: `p${String(n).padStart(4, '0')}` })]);
      const held = new Set<string>();
      for (let cursor: number | undefined, first = true; first || cursor !== undefined; first = false) {
        const page = await store.journal.page({ limit: 100, before: cursor });
        for (const entry of page.entries) held.add(entry.partnerId ?? '');
        cursor = page.next;
      }
      expect(held.size).toBeGreaterThan(3);
      expect(held.size).toBeLessThan(150);
      const scopeBytes = table<number>('journal_scope_bytes', { ordered: true });
      const counted = await store.store.read((tx) => tx.scan(scopeBytes, within([], { limit: 1000 })));
      expect(new Set(counted.map((entry) => parts(entry.key)[0]))).toEqual(held);
    });

    it("forgets a partner's requests on its reset, and nothing of another's", async () => {
      const store = await fresh();
      await store.journal.append([request(0), request(1, { partnerId: partnerB }), request(2)]);
      await store.journal.append([request(3)]);
      while (!(await store.store.write((tx) => forgetRequests(tx, partnerA, 1))));
      expect((await store.journal.page({ limit: 10 })).entries.map((e) => e.requestId)).toEqual(['req_1']);
    });
  });

  describe('secrets, reset and durability', () => {
    it('makes a named secret once', async () => {
      const one = await fresh();
      expect(await one.secret('cursor', () => 'first')).toBe('first');
      expect(await one.secret('cursor', () => 'second')).toBe('first');
    });

    itShared('makes a named secret once, for every process on the store', async () => {
      const one = await fresh();
      expect(await one.secret('cursor', () => 'first')).toBe('first');
      expect(await (await second()).secret('cursor', () => 'third')).toBe('first');
    });

    it('serves nothing a reset removed, even to a read made while the reset was being written', async () => {
      const store = await fresh();
      await store.customers.create(partnerA, customer(1));
      const resetting = store.reset();
      const during = await store.customers.get(partnerA, customer(1).serviceCustomerId);
      await resetting;
      expect(during === undefined || during.serviceCustomerId === customer(1).serviceCustomerId).toBe(true);
      expect(await store.customers.get(partnerA, customer(1).serviceCustomerId)).toBeUndefined();
      const created = store.customers.create(partnerA, customer(2));
      await Promise.all([created, store.reset(partnerA)]);
      expect(await store.customers.get(partnerA, customer(2).serviceCustomerId)).toBeUndefined();
    });

    it("resets one partner's data and leaves the other's, or everything", async () => {
      const store = await fresh();
      for (const partner of [partnerA, partnerB]) {
        await store.customers.create(partner, customer(1));
        await store.timeline.insert(partner, company(partner === partnerA ? 1 : 2), t0);
        await store.idempotency.begin(lock('k', 'o', partner), 'fp', t0, 1000);
        await store.journal.append([request(1, { partnerId: partner })]);
      }
      await store.outbox.append([outboxEvent(company(1).serviceCompanyId, 1, ['default'], partnerA), outboxEvent(company(2).serviceCompanyId, 1, ['default'], partnerB)], t0);
      await store.reset(partnerA);
      expect(await store.customers.get(partnerA, customer(1).serviceCustomerId)).toBeUndefined();
      expect(await store.companies.get(partnerA, company(1).serviceCompanyId)).toBeUndefined();
      expect(await store.idempotency.count(partnerA, t0)).toBe(0);
      expect((await store.journal.page({ limit: 10 })).entries.map((e) => e.partnerId)).toEqual([partnerB]);
      expect((await store.outbox.deliveries(t0, 100)).map((d) => d.orderingKey)).toEqual([company(2).serviceCompanyId]);
      expect((await store.timeline.claimDue(t0, 1000, 5)).map((claim) => claim.partnerId)).toEqual([partnerB]);
      expect(await store.customers.get(partnerB, customer(1).serviceCustomerId)).toBeDefined();
      await store.reset();
      expect(await store.customers.get(partnerB, customer(1).serviceCustomerId)).toBeUndefined();
      expect(await store.outbox.deliveries(t0, 100)).toEqual([]);
      expect((await store.journal.page({ limit: 10 })).entries).toEqual([]);
    });

    itDurable('keeps everything across a close and a reopen', async () => {
      const store = await fresh();
      await store.customers.create(partnerA, customer(1));
      await store.timeline.insert(partnerA, company(1), t0 + 50);
      await store.idempotency.begin(lock('k'), 'fp', t0, 1000);
      await store.idempotency.complete(lock('k'), answer, t0);
      await store.outbox.append([outboxEvent(companyId('a'))], t0);
      await store.journal.append([request(1)]);
      const secret = await store.secret('cursor', () => 'made once');
      await store.close();
      const again = await reopened();
      expect(await again.customers.get(partnerA, customer(1).serviceCustomerId)).toEqual(customer(1));
      expect((await again.idempotency.begin(lock('k', 'o2'), 'fp', t0 + 1, 1000)).began).toBe(false);
      expect((await again.timeline.claimDue(t0 + 50, 1000, 5)).map((claim) => claim.companyId)).toEqual([company(1).serviceCompanyId]);
      expect(await again.outbox.claim(t0, 1000, 5)).toHaveLength(1);
      expect((await again.journal.page({ limit: 5 })).entries.map((e) => e.requestId)).toEqual(['req_1']);
      expect(await again.secret('cursor', () => 'made again')).toBe(secret);
    });
  });
});

describe('the sqlite store', () => {
  it('serves one process: a second store on the same file is refused with a message pointing to Redis', async () => {
    const backend = sqliteBackend();
    await backend.setUp();
    const first = await backend.open();
    try {
      await expect(backend.reopen?.()).rejects.toThrow(/in use by another process.*redis:\/\//);
    } finally {
      await first.close();
      await backend.tearDown();
    }
  });
});

describe('data of another version', () => {
  it('is refused by the SQLite store, saying what to do', async () => {
    const { DatabaseSync } = await import('node:sqlite');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const folder = mkdtempSync(join(tmpdir(), 'store-version-'));
    try {
      const path = join(folder, 'old.db');
      const old = new DatabaseSync(path);
      old.exec('CREATE TABLE customers (x); PRAGMA user_version = 1');
      old.close();
      await expect(openStore({ kind: 'sqlite', path })).rejects.toThrow(/layout version 1.*move the file away/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it.skipIf(!redisTestsEnabled())('is refused by the Redis store, saying what to do', async () => {
    const server = await startRedisServer();
    try {
      const client = new Redis(`${server.url}/3`);
      await client.set('pfm:d:customers-of-an-older-mock', 'x');
      client.disconnect();
      await expect(openStore({ kind: 'redis', url: `${server.url}/3` })).rejects.toThrow(/earlier layout.*FLUSHDB/);
      const fresh = await openStore({ kind: 'redis', url: `${server.url}/4` });
      await fresh.close();
    } finally {
      await server.stop();
    }
  });
});
