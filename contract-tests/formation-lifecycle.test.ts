/**
 * simulateCompanyFormation drives LLC and CCorp formations to COMPLETED and to FAILED (NEXT by default), with the
 * EIN and every document ready before it answers; each step's webhook events arrive at the suite's receiver,
 * signed (checked with the client's `verifyWebhook`), valid against the contract's `webhooks`, in lifecycle order,
 * and are deduplicated on `id` after refused deliveries are retried: one, or every other one of three formations at
 * once. A refused simulation sends nothing.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../client/index.ts';
import type { Company } from '../generated/openapi.js';
import { api, apiError, eventually, newCompany, simulation, sleep, target, unknownId } from './support/fixtures.ts';
import { recordSkip } from './support/observe.ts';
import { deliveriesContaining, eventsOfCompany, refuseDeliveries } from './support/webhooks.ts';

const documentOrder = {
  LLC: ['ARTICLES_OF_ORGANIZATION', 'OPERATING_AGREEMENT', 'EIN_CONFIRMATION_LETTER'],
  CCorp: ['CERTIFICATE_OF_INCORPORATION', 'BYLAWS', 'EIN_CONFIRMATION_LETTER'],
} as const;

const completedSequence = (entityType: 'LLC' | 'CCorp') => [
  'company.formation.submitted',
  'company.formation.completed',
  'company.ein.issued',
  ...documentOrder[entityType].map(() => 'document.ready'),
];

if (!target.webhook) {
  recordSkip('webhook events of the formations', 'no receiver: CONTRACT_WEBHOOK_URL and CONTRACT_WEBHOOK_SECRET are not set');
}

/** The company's events, once as many as expected have arrived; `undefined` when the target has no receiver. */
async function expectEvents(companyId: string, types: string[]): Promise<WebhookEvent[] | undefined> {
  if (!target.webhook) return undefined;
  const { events } = await eventsOfCompany(companyId, (seen) => seen.length >= types.length);
  expect(events.map((event) => event.type)).toEqual(types);
  for (const event of events) expect((event.data as { serviceCompanyId?: string }).serviceCompanyId).toBe(companyId);
  const times = events.map((event) => Date.parse(event.timestamp));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  return events;
}

async function expectCompletedEvents(company: Company): Promise<void> {
  const events = await expectEvents(company.serviceCompanyId, completedSequence(company.entityType));
  if (!events) return;
  const { payload: documents } = await api.listCompanyDocuments({ companyId: company.serviceCompanyId });
  const [submitted, completed, ein, ...ready] = events;
  expect(submitted?.data).toMatchObject({ serviceCustomerId: company.serviceCustomerId, status: 'SUBMITTED' });
  expect(completed?.data).toMatchObject({ status: 'COMPLETED', name: company.name, filingDate: company.filingDate });
  expect(ein?.data).toMatchObject({ ein: company.ein });
  expect(ready.map((event) => (event.data as { documentType?: string }).documentType)).toEqual([...documentOrder[company.entityType]]);
  // Listed in the order they became ready, which is the order they were announced in.
  expect(ready.map((event) => (event.data as { documentId?: string }).documentId)).toEqual(documents.data.map((document) => document.documentId));
}

/** The types of the company's documents as listed. */
async function listedDocumentTypes(companyId: string): Promise<string[]> {
  return (await api.listCompanyDocuments({ companyId })).payload.data.map((document) => document.type);
}

describe('a formation driven to COMPLETED', () => {
  it('LLC, step by step: SUBMITTED, then COMPLETED with its EIN, filing date and three documents', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    // Refusing the first delivery makes the target send it again: the receiver sees the same id twice.
    if (target.webhook) await refuseDeliveries(companyId, 1);

    const submitted = (await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationNext'))).payload;
    expect(submitted).toMatchObject({ serviceCompanyId: companyId, status: 'SUBMITTED', filingDate: null, ein: null });
    expect(await listedDocumentTypes(companyId)).toEqual([]);
    const completed = (await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted'))).payload;
    expect(completed).toMatchObject({ status: 'COMPLETED', failure: null });
    expect(completed.ein).toMatch(/^\d{2}-\d{7}$/);
    expect(completed.filingDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await api.getCompany({ companyId })).payload).toMatchObject({ status: 'COMPLETED', ein: completed.ein });
    // Every document is ready before the answer: listed at once, in the published order.
    expect(await listedDocumentTypes(companyId)).toEqual(documentOrder.LLC);

    await expectCompletedEvents(completed);
    if (target.webhook) {
      const { deliveries } = await eventsOfCompany(companyId, () => true);
      const ids = deliveries.map((delivery) => delivery.headers['webhook-id']);
      const refused = deliveries.filter((delivery) => delivery.answeredStatus === 500);
      expect(refused).toHaveLength(1);
      expect(ids.filter((id) => id === refused[0]?.headers['webhook-id']).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('CCorp, in one call from PENDING: every step and its events, in order', async () => {
    const company = await newCompany('CCorp');
    const { payload: completed } = await api.simulateCompanyFormation(
      { companyId: company.serviceCompanyId },
      simulation('SimulateFormationCompleted'),
    );
    expect(completed).toMatchObject({ status: 'COMPLETED', entityType: 'CCorp' });
    expect(completed.ein).not.toBeNull();
    expect(await listedDocumentTypes(company.serviceCompanyId)).toEqual(documentOrder.CCorp);
    await expectCompletedEvents(completed);
  });

  it('takes NEXT as the default target: {} moves PENDING to SUBMITTED, then SUBMITTED to COMPLETED', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    expect((await api.simulateCompanyFormation({ companyId }, {})).payload.status).toBe('SUBMITTED');
    const { payload: completed } = await api.simulateCompanyFormation({ companyId }, {});
    expect(completed.status).toBe('COMPLETED');
    expect(completed.ein).not.toBeNull();
    expect(await listedDocumentTypes(companyId)).toEqual(documentOrder.LLC);
  });

  it('refuses to move it again: 409 E_FORMATION_ALREADY_FINAL, and sends nothing more', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted'));
    const before = await expectEvents(companyId, completedSequence('LLC'));
    for (const example of ['SimulateFormationNext', 'SimulateFormationFailed'] as const) {
      const error = await apiError(api.simulateCompanyFormation({ companyId }, simulation(example)));
      expect([error.status, error.code]).toEqual([409, 'E_FORMATION_ALREADY_FINAL']);
    }
    if (before) {
      // Time for a wrongly sent event to arrive.
      await sleep(1_000);
      const { events } = await eventsOfCompany(companyId, () => true);
      expect(events.map((event) => event.id)).toEqual(before.map((event) => event.id));
    }
  });
});

describe('deliveries refused every other time, for three formations at once', () => {
  // One refusal per event: on a sandbox each is retried 5 s later, so a formation's six events take half a minute.
  it.skipIf(!target.webhook)(
    "each company's events still arrive in order, once each by id, every refused delivery sent again as the same event",
    async () => {
      const companies = [await newCompany('LLC'), await newCompany('CCorp'), await newCompany('LLC')];
      for (const company of companies) await refuseDeliveries(company.serviceCompanyId, 6, { alternate: true });
      for (const company of companies) {
        await api.simulateCompanyFormation({ companyId: company.serviceCompanyId }, simulation('SimulateFormationCompleted'));
      }
      for (const company of companies) {
        const companyId = company.serviceCompanyId;
        // Six events, each refused once and accepted on its retry.
        await eventually(async () => ((await deliveriesContaining(companyId)).filter((delivery) => delivery.answeredStatus !== 500).length >= 6 ? true : undefined), {
          timeoutMs: 90_000,
          intervalMs: 200,
          describe: () => `the six events of ${companyId} accepted`,
        });
        const { events, deliveries } = await eventsOfCompany(companyId, (types) => types.length >= 6);
        // Deduplicated on id, exactly the formation's events, in order.
        expect(events.map((event) => event.type)).toEqual(completedSequence(company.entityType));
        expect(events.slice(3).map((event) => (event.data as { documentType?: string }).documentType)).toEqual([...documentOrder[company.entityType]]);
        // What was accepted, deduplicated, is the same sequence: no event was accepted before the one before it.
        const accepted = deliveries.filter((delivery) => delivery.answeredStatus !== 500).map((delivery) => delivery.headers['webhook-id']);
        expect([...new Set(accepted)]).toEqual(events.map((event) => event.id));
        expect(deliveries.length).toBeGreaterThanOrEqual(12);
        const refused = deliveries.filter((delivery) => delivery.answeredStatus === 500);
        expect(refused).toHaveLength(6);
        for (const failed of refused) {
          // The retry: the same event (same webhook-id, same bytes), sent after the refusal.
          const retried = deliveries.find((delivery) => delivery.sequence > failed.sequence && delivery.headers['webhook-id'] === failed.headers['webhook-id']);
          expect(retried?.body).toBe(failed.body);
        }
      }
    },
    180_000,
  );
});

describe('a formation driven to FAILED', () => {
  it('LLC, after SUBMITTED, with the reason asked for', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationNext'));
    const request = simulation('SimulateFormationFailed');
    const { payload: failed } = await api.simulateCompanyFormation({ companyId }, request);
    expect(failed).toMatchObject({ status: 'FAILED', ein: null, filingDate: null });
    expect(failed.failure).toMatchObject({ reason: request.failureReason });
    expect((await api.getCompany({ companyId })).payload.failure?.reason).toBe(request.failureReason);

    const events = await expectEvents(companyId, ['company.formation.submitted', 'company.formation.failed']);
    // Without a webhook endpoint (a sandbox run without CONTRACT_WEBHOOK_URL) there are no events to look at.
    if (events) expect(events[1]?.data).toMatchObject({ status: 'FAILED', failure: failed.failure });
    expect((await api.listCompanyDocuments({ companyId })).payload.data).toEqual([]);
    const error = await apiError(api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted')));
    expect(error.code).toBe('E_FORMATION_ALREADY_FINAL');
  });

  it('CCorp, straight from PENDING, with the default reason STATE_REJECTED', async () => {
    const company = await newCompany('CCorp');
    const { payload: failed } = await api.simulateCompanyFormation({ companyId: company.serviceCompanyId }, { target: 'FAILED' });
    expect(failed).toMatchObject({ status: 'FAILED', failure: { reason: 'STATE_REJECTED' } });
    await expectEvents(company.serviceCompanyId, ['company.formation.failed']);
  });
});

describe('simulateCompanyFormation refusals', () => {
  it('answers 404 E_NOT_FOUND for a company no one has', async () => {
    const error = await apiError(api.simulateCompanyFormation({ companyId: unknownId('com') }, simulation('SimulateFormationNext')));
    expect([error.status, error.code]).toEqual([404, 'E_NOT_FOUND']);
  });

  it('refuses an unknown target and an unknown property', async () => {
    const company = await newCompany('LLC');
    const error = await apiError(
      api.simulateCompanyFormation({ companyId: company.serviceCompanyId }, { target: 'SIDEWAYS', speed: 2 } as never),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'body', field: '/target', code: 'E_NOT_ALLOWED_VALUE' }),
        expect.objectContaining({ in: 'body', field: '/speed', code: 'E_UNKNOWN_FIELD' }),
      ]),
    );
    expect((await api.getCompany({ companyId: company.serviceCompanyId })).payload.status).toBe('PENDING');
  });
});
