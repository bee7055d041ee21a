/**
 * The portal's webhook endpoint routes act for the partner whose key is in `Authorization`: create, list, read,
 * update, delete; a secret shown only when made; bad input refused with the API's envelope and field codes; another
 * partner's endpoint not found, as in the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCheckingJournal } from '../support/journal-check.ts';
import type { TestMock } from '../support/mock-harness.ts';
import { createEndpoint, otherSandboxKey, portal, sandboxKey, startPortalMock } from './support.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startPortalMock();
});
afterAll(() => closeCheckingJournal(mock));

describe('the webhook endpoint routes', () => {
  it('create an endpoint with a whsec_ secret shown then, and never again', async () => {
    const created = await createEndpoint(mock, sandboxKey, { url: 'https://hooks.example.com/formation?token=abc', description: 'Staging', enabledEvents: ['document.ready', 'company.formation.completed'] });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^we_[A-Za-z0-9]{24}$/),
      url: 'https://hooks.example.com/formation?token=abc',
      description: 'Staging',
      enabledEvents: ['document.ready', 'company.formation.completed'],
      status: 'enabled',
      disabled: null,
      secretRotation: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32,}$/),
    });
    const read = await portal(mock, sandboxKey).GET('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: created.id } } });
    expect(read.data?.payload).not.toHaveProperty('secret');
    const listed = await portal(mock, sandboxKey).GET('/_mock/webhook-endpoints');
    expect(listed.data?.payload.data.map((endpoint) => endpoint.id)).toContain(created.id);
    expect(JSON.stringify(listed.data)).not.toContain(created.secret);
  });

  it('default the subscriptions to every event', async () => {
    expect((await createEndpoint(mock, sandboxKey, { url: 'http://localhost:3000/hooks' })).enabledEvents).toEqual(['*']);
  });

  it.each([
    [{ url: 'ftp://hooks.example.com/x' }, '/url', 'E_FORMAT'],
    [{ url: 'https://user:secret@hooks.example.com/x' }, '/url', 'E_INVALID'],
    [{ url: 'https://hooks.example.com/x', enabledEvents: ['company.created'] }, '/enabledEvents/0', 'E_NOT_ALLOWED_VALUE'],
    [{ url: 'https://hooks.example.com/x', secret: 'whsec_mine' }, '/secret', 'E_UNKNOWN_FIELD'],
    [{}, '/url', 'E_REQUIRED'],
  ])('refuse %j with %s %s', async (body, field, code) => {
    const { response, error } = await portal(mock, sandboxKey).POST('/_mock/webhook-endpoints', { body: body as never });
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe('E_VALIDATION_FAILED');
    expect(error?.error.details).toContainEqual(expect.objectContaining({ field, code }));
  });

  it("treat another partner's endpoint as one that does not exist", async () => {
    const created = await createEndpoint(mock, sandboxKey, { url: 'https://hooks.example.com/mine' });
    const theirs = portal(mock, otherSandboxKey);
    const path = { params: { path: { endpointId: created.id } } };
    expect((await theirs.GET('/_mock/webhook-endpoints/{endpointId}', path)).response.status).toBe(404);
    expect((await theirs.PATCH('/_mock/webhook-endpoints/{endpointId}', { ...path, body: { description: 'mine now' } })).response.status).toBe(404);
    expect((await theirs.DELETE('/_mock/webhook-endpoints/{endpointId}', path)).response.status).toBe(404);
    expect((await theirs.POST('/_mock/webhook-endpoints/{endpointId}/rotate-secret', path)).response.status).toBe(404);
    expect((await theirs.GET('/_mock/webhook-endpoints')).data?.payload.data.map((endpoint) => endpoint.id)).not.toContain(created.id);
  });

  it('update and delete an endpoint', async () => {
    const created = await createEndpoint(mock, sandboxKey, { url: 'https://hooks.example.com/old' });
    const path = { params: { path: { endpointId: created.id } } };
    const updated = await portal(mock, sandboxKey).PATCH('/_mock/webhook-endpoints/{endpointId}', { ...path, body: { url: 'https://hooks.example.com/new', description: null, enabledEvents: ['*'] } });
    expect(updated.data?.payload).toMatchObject({ url: 'https://hooks.example.com/new', description: null, createdAt: created.createdAt });
    const refused = await portal(mock, sandboxKey).PATCH('/_mock/webhook-endpoints/{endpointId}', { ...path, body: { url: 'https://a:b@hooks.example.com/' } });
    expect(refused.error?.error.details).toContainEqual(expect.objectContaining({ field: '/url', code: 'E_INVALID' }));
    const deleted = await portal(mock, sandboxKey).DELETE('/_mock/webhook-endpoints/{endpointId}', path);
    expect(deleted.data?.payload).toEqual({ id: created.id, deleted: true });
    expect((await portal(mock, sandboxKey).GET('/_mock/webhook-endpoints/{endpointId}', path)).response.status).toBe(404);
  });

  it('refuse a partner its 21st endpoint', async () => {
    const key = `dk_test_${'e'.repeat(24)}`;
    for (let n = 0; n < 20; n += 1) await createEndpoint(mock, key, { url: `https://hooks.example.com/${n}` });
    const { response, error } = await portal(mock, key).POST('/_mock/webhook-endpoints', { body: { url: 'https://hooks.example.com/21' } });
    expect(response.status).toBe(409);
    expect(error?.error.code).toBe('E_WEBHOOK_ENDPOINT_LIMIT');
  });

  it('refuse a call without a key, or with a key the API would refuse', async () => {
    const anonymous = await fetch(`${mock.url}/_mock/webhook-endpoints`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('E_AUTH_MISSING');
    const wrong = await portal(mock, `Bearer ${sandboxKey}`).GET('/_mock/webhook-endpoints');
    expect(wrong.response.status).toBe(401);
    expect(wrong.error?.error.code).toBe('E_AUTH_INVALID');
  });
});
