/**
 * The journal keeps what a person debugging an integration needs: each entry whole (`getRequest`) holds the request
 * and the answer, headers and bodies, with credentials masked, text cut, binary bodies summarised; an entry's id is
 * the same wherever it is shown and opens it only in the scope it was shown in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';
import { completedFormation, otherSandboxKey, portal, sandboxKey } from '../portal/support.ts';
import { mockAdminClient } from '../../../contract-tests/support/mock-admin.ts';

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock({ formationTimeline: 'manual' });
});
afterAll(() => closeCheckingJournal(mock));

async function entryOf(requestId: string | null, apiKey?: string) {
  const client = mockAdminClient(mock.url, apiKey ? { apiKey } : {});
  const page = await client.GET('/_mock/requests', { params: { query: { limit: 1000 } } });
  const listed = page.data?.payload.data.find((entry) => entry.requestId === requestId);
  if (!listed) throw new Error(`${requestId} is not in the journal`);
  const whole = await client.GET('/_mock/requests/{entryId}', { params: { path: { entryId: listed.id } } });
  expect(whole.response.status).toBe(200);
  return { listed, whole: whole.data?.payload };
}

describe('a journal entry, whole', () => {
  it('holds the request and the answer as sent, the key masked, and lists the same without them', async () => {
    const body = customerBody();
    const sent = await mock.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey(), headers: { cookie: 'session=secret-value', 'x-trace': 'line' } });
    expect(sent.status).toBe(200);
    const { listed, whole } = await entryOf(sent.headers.get('x-request-id'));
    expect(listed).not.toHaveProperty('request');
    expect(whole).toMatchObject({ ...listed, operationId: 'createCustomer', status: 200 });
    expect(whole?.request?.headers).toMatchObject({ authorization: 'dk_test_…aaaa', cookie: '[masked]', 'x-trace': 'line', 'content-type': 'application/json' });
    expect(JSON.stringify(whole)).not.toContain(sandboxKey);
    expect(JSON.parse(whole?.request?.body?.text ?? '')).toEqual(body);
    expect(whole?.request?.body).toMatchObject({ bytes: Buffer.byteLength(JSON.stringify(body)), truncated: false });
    expect(whole?.response?.headers).toMatchObject({ 'x-request-id': sent.headers.get('x-request-id'), 'idempotent-replayed': 'false' });
    expect(JSON.parse(whole?.response?.body?.text ?? '')).toEqual(sent.json);
  });

  it('masks credentials wherever they are: by the name of a header or query parameter, and by their form', async () => {
    const pasted = `dk_test_${'p'.repeat(20)}past`;
    const sent = await mock.call(`/v1/partner/customers/${pasted}?api_key=${sandboxKey}&limit=5`, { headers: { 'x-api-key': 'anything', 'x-note': `see ${sandboxKey}` } });
    const { whole } = await entryOf(sent.headers.get('x-request-id'));
    expect(JSON.stringify(whole)).not.toContain(sandboxKey);
    expect(JSON.stringify(whole)).not.toContain(pasted);
    expect(whole?.path).toBe('/v1/partner/customers/dk_test_…past');
    expect(whole?.request?.query).toBe('api_key=[masked]&limit=5');
    expect(whole?.request?.headers).toMatchObject({ 'x-api-key': '[masked]', 'x-note': 'see dk_test_…aaaa' });
  });

  it('cuts a long text body and summarises one that is not text', async () => {
    const long = JSON.stringify({ ...customerBody(), firstName: 'x'.repeat(40_000) });
    const refused = await mock.call('/v1/partner/customers?source=test', { rawBody: long, idempotencyKey: newIdempotencyKey() });
    expect(refused.status).toBe(400);
    const { whole } = await entryOf(refused.headers.get('x-request-id'));
    expect(whole?.request?.body).toMatchObject({ bytes: Buffer.byteLength(long), truncated: true });
    expect(whole?.request?.body?.text).toBe(long.slice(0, 16_384));
    expect(whole?.request?.query).toBe('source=test');

    const companyId = await completedFormation(mock, sandboxKey);
    const documents = await mock.call(`/v1/partner/companies/${companyId}/documents`);
    const document = (documents.json.payload.data as { documentId: string }[])[0];
    const issued = await mock.call(`/v1/partner/companies/${companyId}/documents/${document?.documentId}`);
    const url = new URL(issued.json.payload.downloadUrl as string);
    const download = await mock.call(`${url.pathname}${url.search}`, { key: null });
    expect(download.headers.get('content-type')).toContain('application/pdf');
    const pdf = await entryOf(download.headers.get('x-request-id'));
    expect(pdf.whole?.response?.body).toEqual({ bytes: Number(download.headers.get('content-length')), text: null, truncated: false });
  });

  it("opens only in the scope it was shown in: a partner's id with that partner's key, an id shown without a key without one", async () => {
    const sent = await mock.call('/v1/partner/customers', { key: otherSandboxKey });
    const requestId = sent.headers.get('x-request-id');
    const theirs = await entryOf(requestId, otherSandboxKey);
    const everyone = await entryOf(requestId);
    expect(theirs.listed.id).not.toBe(everyone.listed.id);
    expect((await entryOf(requestId, otherSandboxKey)).listed.id).toBe(theirs.listed.id);
    for (const [key, id] of [[sandboxKey, theirs.listed.id], [undefined, theirs.listed.id], [otherSandboxKey, everyone.listed.id]] as const) {
      const opened = await mockAdminClient(mock.url, key ? { apiKey: key } : {}).GET('/_mock/requests/{entryId}', { params: { path: { entryId: id } } });
      expect([opened.response.status, opened.error?.error.code]).toEqual([404, 'E_NOT_FOUND']);
    }
    const malformed = await portal(mock, sandboxKey).GET('/_mock/requests/{entryId}', { params: { path: { entryId: 'jr_short' } } });
    expect(malformed.response.status).toBe(400);
  });
});
