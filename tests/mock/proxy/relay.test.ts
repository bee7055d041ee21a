/**
 * The webhook relay (`/_mock/relay/{endpointId}`): the events a real sandbox sends are verified with the sandbox's
 * secret, checked against the contract's webhooks, journaled with their verdict for the endpoint's partner, and
 * forwarded to the partner's local receiver, byte for byte under the sandbox's `webhook-id`, re-signed. Played with
 * a second mock as the sandbox (its events keep the contract), then with this test as a sandbox that gets it wrong.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyViolationsReport, violationRows } from '../../../contract-tests/support/proxy-report.ts';
import { newWebhookSecret } from '../../../mock/webhooks/signing.ts';
import { createCompany, createCustomer, eventually, llcBody, simulate } from '../support/http-fixtures.ts';
import { expectCleanJournal, journalOf } from '../support/journal-check.ts';
import { otherSandboxKey, sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { completedEvent, eventIds, sendToRelay, type Sending } from './support/sandbox-events.ts';

function upstreamOf(url: string) {
  return { url, timeoutMs: 5_000, fallback: false, requests: 'refuse' as const };
}

/** A webhook endpoint made through a mock's admin API, for the partner of `key`. */
async function createEndpoint(mock: TestMock, body: Record<string, unknown>, key = sandboxKey): Promise<{ id: string; secret: string; relay: { url: string; state: string; signWith: string } }> {
  const created = await mock.call('/_mock/webhook-endpoints', { body, key });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.payload;
}

describe('relaying the events of a sandbox that keeps the contract (another mock)', () => {
  let sandbox: TestMock;
  let proxy: TestMock;
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };
  let sandboxSecret: string;
  beforeAll(async () => {
    sandbox = await startTestMock({ webhookRetryDelaysMs: [20, 20, 20] });
    proxy = await startTestMock({ upstream: upstreamOf(sandbox.url), webhookRetryDelaysMs: [20, 20, 20] });
    // The local receiver keeps the secret of the proxy's endpoint, which signs what the relay forwards.
    receiver = await startReceiver(newWebhookSecret(), () => ({ status: 204 }));
    const created = await createEndpoint(proxy, { url: receiver.url, description: 'local receiver' });
    endpoint = created;
    receiver.secrets = [endpoint.secret];
    // The order a sandbox's portal asks for: the relay URL first (every endpoint has one), then the secret it shows.
    const relayUrl = `${proxy.url}/_mock/relay/${endpoint.id}`;
    expect(created.relay).toEqual({ url: relayUrl, state: 'awaiting-secret', signWith: 'endpoint', refusals: { count: 0, last: null } });
    sandboxSecret = (await createEndpoint(sandbox, { url: created.relay.url })).secret;
    const updated = await proxy.call(`/_mock/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', body: { relay: { secret: sandboxSecret } } });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
    expect(updated.json.payload.relay).toEqual({ url: relayUrl, state: 'relaying', signWith: 'endpoint', refusals: { count: 0, last: null } });
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
    await receiver?.close();
  });

  it('verifies, checks and forwards each event, byte for byte under the sandbox’s webhook-id, re-signed', async () => {
    // The formation happens upstream, through the proxy; its events come back through the relay.
    const customer = await createCustomer(proxy);
    const company = await createCompany(proxy, llcBody(customer.serviceCustomerId));
    expect((await simulate(proxy, company.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);
    const sent = (await sandbox.call('/_mock/events?limit=100')).json.payload.data as { id: string; type: string; payload: unknown }[];
    const ofCompany = sent.filter((event) => JSON.stringify(event.payload).includes(company.serviceCompanyId));
    expect(ofCompany.length).toBeGreaterThanOrEqual(2);
    const forwarded = await eventually(() => {
      const accepted = receiver.accepted().filter((event) => event.data.serviceCompanyId === company.serviceCompanyId);
      return accepted.length === ofCompany.length && accepted;
    });
    // In the order the sandbox made them, under its ids, with its bytes, and verified with the proxy endpoint's secret.
    expect(forwarded.map((event) => event.id)).toEqual(ofCompany.map((event) => event.id).reverse());
    for (const event of ofCompany) {
      const request = receiver.requests.find((candidate) => candidate.headers['webhook-id'] === event.id);
      expect(request?.verified).toBe(true);
      expect(JSON.parse(request?.body ?? 'null')).toEqual(event.payload);
    }
    const relayed = (await journalOf(proxy)).filter((entry) => entry.operationId === 'relayWebhook');
    expect(relayed.length).toBeGreaterThanOrEqual(ofCompany.length);
    for (const entry of relayed) {
      expect(entry.status).toBe(202);
      expect(entry.webhook).toMatchObject({ endpointId: endpoint.id, signature: 'valid', violations: [], forwarded: 'queued' });
    }
    // In the partner's own journal: its key lists them; another partner's does not.
    const own = await proxy.call('/_mock/requests?operationId=relayWebhook', { key: sandboxKey });
    expect(own.json.payload.data.length).toBe(relayed.length);
    const other = await proxy.call('/_mock/requests?operationId=relayWebhook', { key: otherSandboxKey });
    expect(other.json.payload.data).toEqual([]);
    // Nothing to report: the sandbox kept the contract.
    expect(violationRows(await journalOf(proxy))).toEqual([]);
    await expectCleanJournal(proxy);
  });

  it('does not forward twice an event the sandbox sends again (same webhook-id)', async () => {
    const [event] = (await sandbox.call('/_mock/events?limit=1')).json.payload.data as { id: string }[];
    const before = receiver.requests.filter((request) => request.headers['webhook-id'] === event?.id).length;
    const sandboxEndpoint = (await sandbox.call('/_mock/webhook-endpoints')).json.payload.data[0].id as string;
    expect((await sandbox.call(`/_mock/events/${event?.id}/redeliver`, { body: { endpointId: sandboxEndpoint } })).status).toBe(202);
    const entry = await eventually(async () => (await journalOf(proxy)).find((found) => found.webhook?.eventId === event?.id && found.webhook?.forwarded === 'duplicate'));
    expect(entry.status).toBe(202);
    expect(receiver.requests.filter((request) => request.headers['webhook-id'] === event?.id).length).toBe(before);
  });

  it('ends the report with what the relay refused, which the journal does not keep', async () => {
    const since = new Date().toISOString();
    expect(await proxyViolationsReport(proxy.url, { since, apiKey: sandboxKey })).toMatch(/: none\.$/);
    const forged = await sendToRelay(proxy, endpoint.id, completedEvent('evt_refusedbyrelay000000000'), { secret: newWebhookSecret() });
    expect(forged.status).toBe(401);
    const report = await proxyViolationsReport(proxy.url, { since, apiKey: sandboxKey });
    expect(report).toMatch(new RegExp(`\\n\\nThe relay of ${endpoint.id} refused 1 event\\(s\\) since its secret was set \\(signature invalid\\), the last at \\S+: No signature .* relay\\.secret$`));
    // Without the partner's key, or for a run that started after it, the report has no such line.
    expect(await proxyViolationsReport(proxy.url, { since })).not.toMatch(/refused/);
    expect(await proxyViolationsReport(proxy.url, { since: new Date(Date.now() + 60_000).toISOString(), apiKey: sandboxKey })).not.toMatch(/refused/);
  });
});

describe('relaying the events of a sandbox that gets them wrong', () => {
  let proxy: TestMock;
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };
  const sandboxSecret = newWebhookSecret();
  const eventId = eventIds('relay');
  const completed = completedEvent;
  /** Sends an event to the relay as a sandbox would, signed with the sandbox's secret unless another is given. */
  const send = (event: unknown, options: Sending = {}) => sendToRelay(proxy, endpoint.id, event, { ...options, secret: options.secret ?? sandboxSecret });
  beforeAll(async () => {
    proxy = await startTestMock({ adminToken: 'relay-admin-token', webhookRetryDelaysMs: [20, 20, 20] });
    receiver = await startReceiver(sandboxSecret, () => ({ status: 204 }));
    const created = await proxy.call('/_mock/webhook-endpoints', { body: { url: receiver.url, relay: { secret: sandboxSecret, signWith: 'upstream' } }, headers: { 'x-mock-admin-token': 'relay-admin-token' } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    endpoint = created.json.payload;
    expect(created.json.payload.relay.signWith).toBe('upstream');
  });
  afterAll(async () => {
    await proxy?.close();
    await receiver?.close();
  });

  it('forwards an event that keeps the contract signed with the sandbox’s own secret (signWith: upstream), without the admin token', async () => {
    const event = completed(eventId());
    const answer = await send(event);
    expect(answer.status).toBe(202);
    expect(answer.json.payload).toEqual({ endpointId: endpoint.id, eventId: event.id, type: event.type, signature: 'valid', violations: [], forwarded: 'queued' });
    // The receiver verifies with the sandbox's secret only.
    const received = await eventually(() => receiver.requests.find((request) => request.headers['webhook-id'] === event.id));
    expect(received.verified).toBe(true);
    expect(received.body).toBe(JSON.stringify(event));
  });

  it('refuses an event signed with another secret, or without its headers, or too old: counted, never forwarded', async () => {
    const forged = completed(eventId());
    const wrongSecret = await send(forged, { secret: newWebhookSecret() });
    expect([wrongSecret.status, wrongSecret.json.error.code]).toEqual([401, 'E_WEBHOOK_SIGNATURE_INVALID']);
    expect(wrongSecret.json.error.message).toMatch(/relay\.secret/);
    const unsigned = await send(completed(eventId()), { headers: { 'webhook-signature': undefined } });
    expect([unsigned.status, unsigned.json.error.message]).toEqual([401, expect.stringMatching(/lacks webhook-signature/)]);
    const stale = await send(completed(eventId()), { at: new Date(Date.now() - 10 * 60_000) });
    expect([stale.status, stale.json.error.message]).toEqual([401, expect.stringMatching(/five minutes/)]);
    expect((await journalOf(proxy)).filter((entry) => entry.status === 401)).toEqual([]);
    const view = await proxy.call(`/_mock/webhook-endpoints/${endpoint.id}`, { headers: { 'x-mock-admin-token': 'relay-admin-token' } });
    expect(view.json.payload.relay.refusals).toEqual({ count: 3, last: { at: expect.any(String), signature: 'invalid', reason: expect.stringMatching(/five minutes/) } });
    // An event sent after them arrives; none of them did.
    const after = completed(eventId());
    expect((await send(after)).status).toBe(202);
    await eventually(() => receiver.requests.find((request) => request.headers['webhook-id'] === after.id));
    expect(receiver.requests.map((request) => request.headers['webhook-id'])).not.toContain(forged.id);
  });

  it('keeps what a sender controls to one plain line: the journal stays readable', async () => {
    const answer = await send({ ...completed(eventId()), type: 'company.\u0001renamed\t' });
    expect([answer.status, answer.json.payload.forwarded]).toEqual([202, 'refused']);
    expect((await proxy.call('/_mock/requests', { key: null, headers: { 'x-mock-admin-token': 'relay-admin-token' } })).status).toBe(200);
    expect((await journalOf(proxy)).find((entry) => entry.webhook?.type?.startsWith('company.\uFFFD'))?.webhook?.type).toBe('company.\uFFFDrenamed\uFFFD');
  });

  it('names each way a payload breaks the contract once, at its pointer, and forwards it all the same', async () => {
    const { filingDate: _left, ...data } = completed('').data;
    const id = eventId();
    const broken = { ...completed(id), data: { ...data, status: 'DONE' } };
    const answer = await send(broken);
    expect(answer.status).toBe(202);
    expect(answer.json.payload.forwarded).toBe('queued');
    expect(answer.json.payload.violations).toEqual([
      expect.stringMatching(/^body\/data: must have required property 'filingDate'/),
      expect.stringMatching(/^body\/data\/status: /),
    ]);
    await eventually(() => receiver.requests.find((request) => request.headers['webhook-id'] === id));
    // An id other than webhook-id, and a type the contract does not have (not forwarded: it could not be listed).
    const mismatched = await send(completed(eventId()), { id: eventId() });
    expect(mismatched.json.payload.violations).toEqual([expect.stringMatching(/^body\/id: must equal the webhook-id header/)]);
    const unknown = await send({ ...completed(eventId()), type: 'company.renamed' });
    expect(unknown.status).toBe(202);
    expect(unknown.json.payload).toMatchObject({ type: 'company.renamed', forwarded: 'refused', violations: [expect.stringMatching(/^body\/type: "company.renamed" is not one of the contract's webhooks/)] });
  });

  it('ends a proxy run’s report with the webhook rows', async () => {
    const rows = violationRows(await journalOf(proxy));
    expect(rows.filter((row) => row.side === 'webhook')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operation: 'company.formation.completed', count: 3, example: expect.stringMatching(/^body\/data/) }),
        expect.objectContaining({ operation: 'company.\uFFFDrenamed\uFFFD', example: expect.stringMatching(/^body\/type: .* is not one of the contract's webhooks/) }),
      ]),
    );
    expect(await proxyViolationsReport(proxy.url, { adminToken: 'relay-admin-token' })).toBeUndefined();
  });

  it("answers 404 for an endpoint that does not exist, and 409 saying so for one whose relay awaits the sandbox's secret, counting it", async () => {
    const missing = await proxy.call('/_mock/relay/we_3fTq8ZmP1xLk6VbN9cRw2HsD', { rawBody: JSON.stringify(completed(eventId())), key: null });
    expect([missing.status, missing.json.error.code]).toEqual([404, 'E_NOT_FOUND']);
    const plain = await proxy.call('/_mock/webhook-endpoints', { body: { url: receiver.url }, headers: { 'x-mock-admin-token': 'relay-admin-token' } });
    const notRelaying = await proxy.call(`/_mock/relay/${plain.json.payload.id as string}`, { rawBody: JSON.stringify(completed(eventId())), key: null });
    expect([notRelaying.status, notRelaying.json.error.code]).toEqual([409, 'E_WEBHOOK_RELAY_NOT_CONFIGURED']);
    expect(notRelaying.json.error.message).toMatch(/awaits the sandbox's secret: set relay\.secret/);
    const view = await proxy.call(`/_mock/webhook-endpoints/${plain.json.payload.id as string}`, { headers: { 'x-mock-admin-token': 'relay-admin-token' } });
    expect(view.json.payload.relay).toMatchObject({ state: 'awaiting-secret', refusals: { count: 1, last: { signature: 'unverifiable' } } });
    // Given its secret afterwards ({} first: nothing changes), it relays, its count afresh.
    const path = `/_mock/webhook-endpoints/${plain.json.payload.id as string}`;
    expect((await proxy.call(path, { method: 'PATCH', body: { relay: {} }, headers: { 'x-mock-admin-token': 'relay-admin-token' } })).json.payload.relay.state).toBe('awaiting-secret');
    const set = await proxy.call(path, { method: 'PATCH', body: { relay: { secret: sandboxSecret } }, headers: { 'x-mock-admin-token': 'relay-admin-token' } });
    expect(set.json.payload.relay).toMatchObject({ state: 'relaying', signWith: 'endpoint', refusals: { count: 0 } });
    // The other admin routes still want the token.
    expect((await proxy.call('/_mock/requests', { key: null })).status).toBe(401);
    await expectCleanJournal(proxy);
  });

  it('signs the mock’s own events to the endpoint with the endpoint’s secret, never the sandbox’s', async () => {
    const customer = await createCustomer(proxy, { key: sandboxKey });
    const company = await createCompany(proxy, llcBody(customer.serviceCustomerId));
    expect((await simulate(proxy, company.serviceCompanyId, { target: 'NEXT' })).status).toBe(200);
    const own = await eventually(() => receiver.requests.find((request) => request.body.includes(company.serviceCompanyId)));
    expect(own.verified).toBe(false);
    expect(() => new Webhook(endpoint.secret).verify(own.body, own.headers)).not.toThrow();
  });
});
