/**
 * What one partner of a shared mock can do to another: nothing. It cannot send its events to the shared default
 * endpoint once it has endpoints of its own (that receiver belongs to the partners without any), its event-list
 * cursors say nothing of other partners' activity, and settings changed with its key are its own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Handlers } from '../../../mock/pipeline/handler.ts';
import { eventually } from '../support/http-fixtures.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { completedFormation, createEndpoint, otherSandboxKey, portal, resetMock, sandboxKey, startPortalMock } from './support.ts';

describe('with a default endpoint for the partners that have none', () => {
  let mock: TestMock;
  let shared: Receiver;
  let own: Receiver;

  beforeAll(async () => {
    const secret = newSecret();
    shared = await startReceiver(secret, () => ({ status: 200 }));
    own = await startReceiver(newSecret(), () => ({ status: 200 }));
    mock = await startPortalMock({ webhookUrl: shared.url, webhookSecret: secret });
  });
  afterEach(() => resetMock(mock));
  afterAll(async () => {
    await mock.close();
    await Promise.all([shared.close(), own.close()]);
  });

  const firstEvent = async (apiKey: string) => {
    const listed = await eventually(async () => (await portal(mock, apiKey).GET('/_mock/events', { params: { query: { limit: 1 } } })).data?.payload.data[0], 10_000, 'an event');
    return listed.id;
  };
  const redeliver = (apiKey: string, eventId: string, endpointId: string) =>
    portal(mock, apiKey).POST('/_mock/events/{eventId}/redeliver', { params: { path: { eventId } }, body: { endpointId } });

  it('lets a partner with no endpoint of its own redeliver to it', async () => {
    await completedFormation(mock, otherSandboxKey);
    expect((await redeliver(otherSandboxKey, await firstEvent(otherSandboxKey), 'default')).response.status).toBe(202);
  });

  it('refuses, as an unknown endpoint, a redelivery to it by a partner that has endpoints of its own', async () => {
    own.secrets = [(await createEndpoint(mock, sandboxKey, { url: own.url })).secret];
    await completedFormation(mock, sandboxKey);
    const eventId = await firstEvent(sandboxKey);
    const before = shared.requests.length;
    const refused = await redeliver(sandboxKey, eventId, 'default');
    expect(refused.response.status).toBe(404);
    expect(refused.error?.error.code).toBe('E_NOT_FOUND');
    expect(shared.requests.slice(before).filter((request) => request.event?.id === eventId)).toEqual([]);
  });
});

describe('event cursors', () => {
  let mock: TestMock;
  beforeAll(async () => {
    mock = await startPortalMock();
  });
  afterAll(() => mock.close());

  it("are opaque: they carry no position another partner's events moved, and work only for their partner", async () => {
    await completedFormation(mock, otherSandboxKey);
    await completedFormation(mock, sandboxKey);
    const first = await portal(mock, sandboxKey).GET('/_mock/events', { params: { query: { limit: 2 } } });
    const cursor = first.data?.payload.nextCursor;
    expect(typeof cursor).toBe('string');
    // Neither a bare event number nor a readable position ([position, scope]) beside a signature.
    expect(cursor).not.toMatch(/^\d+$/);
    expect(Buffer.from(cursor as string, 'base64url').toString('latin1')).not.toMatch(/\[\d+,"/);

    const second = await portal(mock, sandboxKey).GET('/_mock/events', { params: { query: { limit: 2, cursor: cursor as string } } });
    expect(second.response.status).toBe(200);
    const seen = new Set(first.data?.payload.data.map((event) => event.id));
    expect(second.data?.payload.data.some((event) => seen.has(event.id))).toBe(false);

    const borrowed = await portal(mock, otherSandboxKey).GET('/_mock/events', { params: { query: { limit: 2, cursor: cursor as string } } });
    expect(borrowed.response.status).toBe(400);
    expect(borrowed.error?.error.details?.[0]?.code).toBe('E_CURSOR_INVALID');
  });
});

describe('settings', () => {
  let mock: TestMock;
  // listCountries answers something the contract does not allow, to see whose answers are checked.
  const handlers: Partial<Handlers> = { listCountries: () => ({ status: 200, payload: { data: 'not a list' } }) as never };
  beforeAll(async () => {
    mock = await startTestMock({}, { handlers });
  });
  afterAll(() => mock.close());

  const settingsOf = async (apiKey?: string) =>
    (await (apiKey === undefined ? portal(mock, '') : portal(mock, apiKey)).GET('/_mock/settings')).data?.payload.validateResponses;

  it("changed with a key are that partner's only; without one, every partner's", async () => {
    const changed = await portal(mock, sandboxKey).PUT('/_mock/settings', { body: { validateResponses: false } });
    expect(changed.data?.payload.validateResponses).toBe(false);
    expect(await settingsOf(sandboxKey)).toBe(false);
    expect(await settingsOf(otherSandboxKey)).toBe(true);
    expect(await settingsOf()).toBe(true);
    expect((await mock.call('/v1/partner/reference/countries', { key: sandboxKey })).status).toBe(200);
    expect((await mock.call('/v1/partner/reference/countries', { key: otherSandboxKey })).status).toBe(500);

    await portal(mock, '').PUT('/_mock/settings', { body: { validateResponses: true } });
    expect(await settingsOf(sandboxKey)).toBe(true);
    expect((await mock.call('/v1/partner/reference/countries', { key: sandboxKey })).status).toBe(500);
  });
});
