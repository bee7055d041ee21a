/** What the portal tests share: a mock whose formations move on request, a typed admin client per partner, a formation run to its end. */
import { mockAdminClient, type MockAdminClient } from '../../../contract-tests/support/mock-admin.ts';
import type { MockConfig } from '../../../mock/config/config.ts';
import { createCompany, createCustomer, llcBody, simulate } from '../support/http-fixtures.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

export { otherSandboxKey, sandboxKey } from '../support/mock-harness.ts';

/** Formations advance only on request; failed deliveries are retried twice, quickly, before the endpoint is disabled. */
export function startPortalMock(settings: Partial<MockConfig> = {}): Promise<TestMock> {
  return startTestMock({ formationTimeline: 'manual', webhookRetryDelaysMs: [10, 10], webhookTimeoutMs: 5_000, ...settings });
}

export function portal(mock: TestMock, apiKey: string): MockAdminClient {
  return mockAdminClient(mock.url, { apiKey });
}

/** Creates an endpoint for the partner and returns it with its secret; fails the test on anything but 201. */
export async function createEndpoint(mock: TestMock, apiKey: string, body: { url: string; enabledEvents?: string[]; description?: string }) {
  const { data, error, response } = await portal(mock, apiKey).POST('/_mock/webhook-endpoints', { body: body as never });
  if (response.status !== 201 || !data) throw new Error(`creating an endpoint answered ${response.status}: ${JSON.stringify(error)}`);
  return data.payload;
}

/** A company of the partner taken to COMPLETED (its EIN and documents included): six events. */
export async function completedFormation(mock: TestMock, apiKey: string): Promise<string> {
  const customer = await createCustomer(mock, { key: apiKey });
  const company = await createCompany(mock, llcBody(customer.serviceCustomerId), apiKey);
  const moved = await simulate(mock, company.serviceCompanyId, { target: 'COMPLETED' }, apiKey);
  if (moved.status !== 200) throw new Error(`simulating answered ${moved.status}`);
  return company.serviceCompanyId;
}

/** Empties the mock's store through its admin API, as a team member would between runs. */
export async function resetMock(mock: TestMock): Promise<void> {
  const response = await fetch(`${mock.url}/_mock/reset`, { method: 'POST' });
  if (response.status !== 200) throw new Error(`resetting answered ${response.status}`);
}
