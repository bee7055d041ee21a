/**
 * simulateCompanyFormation drives LLC and CCorp formations to COMPLETED and to FAILED; each step's webhook
 * events arrive at the suite's receiver, signed (checked with the client's `verifyWebhook`), valid against the
 * contract's `webhooks`, in lifecycle order, and are deduplicated on `id` after a refused delivery is retried.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../client/index.ts';
import type { Company } from '../generated/openapi.js';
import { api, apiError, newCompany, simulation, target, unknownId } from './support/fixtures.ts';
import { recordSkip } from './support/observe.ts';
import { eventsOfCompany, refuseDeliveries } from './support/webhooks.ts';

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
  expect(ready.map((event) => (event.data as { documentId?: string }).documentId).sort()).toEqual(
    documents.data.map((document) => document.documentId).sort(),
  );
}

describe('a formation driven to COMPLETED', () => {
  it('LLC, step by step: SUBMITTED, then COMPLETED with its EIN, filing date and three documents', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    // Refusing the first delivery makes the target send it again: the receiver sees the same id twice.
    if (target.webhook) await refuseDeliveries(companyId, 1);

    const submitted = (await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationNext'))).payload;
    expect(submitted.status).toBe('SUBMITTED');
    const completed = (await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted'))).payload;
    expect(completed).toMatchObject({ status: 'COMPLETED', failure: null });
    expect(completed.ein).toMatch(/^\d{2}-\d{7}$/);
    expect(completed.filingDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await api.getCompany({ companyId })).payload).toMatchObject({ status: 'COMPLETED', ein: completed.ein });

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
    await expectCompletedEvents(completed);
  });

  it('refuses to move it again: 409 E_FORMATION_ALREADY_FINAL', async () => {
    const company = await newCompany('LLC');
    const companyId = company.serviceCompanyId;
    await api.simulateCompanyFormation({ companyId }, simulation('SimulateFormationCompleted'));
    for (const example of ['SimulateFormationNext', 'SimulateFormationFailed'] as const) {
      const error = await apiError(api.simulateCompanyFormation({ companyId }, simulation(example)));
      expect([error.status, error.code]).toEqual([409, 'E_FORMATION_ALREADY_FINAL']);
    }
  });
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
