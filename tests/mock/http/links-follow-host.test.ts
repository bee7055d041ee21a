/**
 * The links the mock makes follow the host the client used: a document's download URL, a relay's URL and the
 * server of the contract it serves are at `localhost:PORT` for a page loaded from there (a page of one origin may not
 * frame another's: the console's PDF), at `127.0.0.1:PORT` for one loaded from there, at the address the mock
 * listens on for a Host that is not one of its names, and at `--public-url` whenever it has one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockAdminClient } from '../../../contract-tests/support/mock-admin.ts';
import { completedFormation } from '../portal/support.ts';
import { rawRequest, sandboxKey } from '../support/http-call.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let behindTunnel: TestMock;
let companyId: string;
let documentId: string;
beforeAll(async () => {
  [mock, behindTunnel] = await Promise.all([startTestMock(), startTestMock({ publicUrl: 'https://mock-team.example.dev', adminToken: 'a-token-of-the-team' })]);
  companyId = await completedFormation(mock, sandboxKey);
  documentId = (await mock.call(`/v1/partner/companies/${companyId}/documents`)).json.payload.data[0].documentId;
});
afterAll(async () => {
  await Promise.all([mock.close(), behindTunnel.close()]);
});

const port = () => new URL(mock.url).port;
const asJson = (answer: { body: Buffer }) => JSON.parse(answer.body.toString('utf8'));

async function downloadUrlFor(on: TestMock, host: string, id = companyId, document = documentId): Promise<string> {
  const answer = await rawRequest(on.url, 'GET', `/v1/partner/companies/${id}/documents/${document}`, { host, authorization: sandboxKey });
  expect(answer.status).toBe(200);
  return asJson(answer).payload.downloadUrl;
}

describe('the links the mock makes', () => {
  it("are made with the host the client used, when it is one of the mock's names", async () => {
    expect(await downloadUrlFor(mock, `localhost:${port()}`)).toMatch(new RegExp(`^http://localhost:${port()}/v1/partner/companies/${companyId}/documents/${documentId}/content\\?`));
    expect(await downloadUrlFor(mock, `127.0.0.1:${port()}`)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port()}/`));
    expect(await downloadUrlFor(mock, `LocalHost:${port()}`)).toMatch(new RegExp(`^http://localhost:${port()}/`));
  });

  it('are made with the address the mock listens on for a Host that is not its own', async () => {
    for (const host of ['evil.example', 'evil.example:4010', 'localhost@evil.example', 'localhost/evil']) {
      expect(await downloadUrlFor(mock, host), host).toMatch(new RegExp(`^${mock.url.replaceAll('.', '\\.')}/`));
    }
  });

  it('are made with the address the mock listens on for a name DNS could not hold, so that no link outgrows its maxLength', async () => {
    const long = `${'a'.repeat(2100)}.localhost:${port()}`;
    const longLabel = `${'a'.repeat(64)}.localhost:${port()}`;
    const longName = `${Array(64).fill('abc').join('.')}.localhost:${port()}`; // 255 characters before the port
    for (const host of [long, longLabel, longName, `evil.example;.localhost:${port()}`, `evil.example%2e.localhost:${port()}`]) {
      expect(await downloadUrlFor(mock, host), host.slice(0, 80)).toMatch(new RegExp(`^${mock.url.replaceAll('.', '\\.')}/`));
    }
    expect(await downloadUrlFor(mock, `${'a'.repeat(63)}.localhost:${port()}`)).toMatch(new RegExp(`^http://a{63}\\.localhost:${port()}/`));
  });

  it('refuse an admin call whose Host is no name, before anything is written', async () => {
    const host = `${'a'.repeat(5000)}.localhost:${port()}`;
    const body = JSON.stringify({ url: 'http://localhost:3000/webhooks', enabledEvents: ['*'] });
    const key = 'dk_test_LongHostPartner000000000001';
    const answer = await rawRequest(mock.url, 'POST', '/_mock/webhook-endpoints', { host, authorization: key, 'content-type': 'application/json' }, body);
    expect(answer.status).toBe(403);
    expect(asJson(answer).error.code).toBe('E_HOST_NOT_ALLOWED');
    const listed = await rawRequest(mock.url, 'GET', '/_mock/webhook-endpoints', { authorization: key });
    expect(asJson(listed).payload.data).toEqual([]);
  });

  it('write an address one way, as URL parsing writes it', async () => {
    const served = asJson(await rawRequest(mock.url, 'GET', '/openapi.json', { host: `0x7f.2:${port()}` })).servers[0].url;
    expect(served).toBe(`http://127.0.0.2:${port()}`);
  });

  it('that a download URL gives serve the document at the host it names', async () => {
    const url = new URL(await downloadUrlFor(mock, `localhost:${port()}`));
    const file = await rawRequest(mock.url, 'GET', `${url.pathname}${url.search}`, { host: url.host });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
  });

  it('name the host the client used as the first server of the contract the mock serves', async () => {
    const served = async (host: string) => asJson(await rawRequest(mock.url, 'GET', '/openapi.json', { host })).servers[0].url;
    expect(await served(`localhost:${port()}`)).toBe(`http://localhost:${port()}`);
    expect(await served(`127.0.0.1:${port()}`)).toBe(`http://127.0.0.1:${port()}`);
    expect(await served('evil.example')).toBe(mock.url);
  });

  it("are made with --public-url when the mock has one, a relay's URL included", async () => {
    const tunnelCompany = await completedFormation(behindTunnel, sandboxKey);
    const tunnelDocument = (await behindTunnel.call(`/v1/partner/companies/${tunnelCompany}/documents`)).json.payload.data[0].documentId;
    expect(await downloadUrlFor(behindTunnel, `localhost:${new URL(behindTunnel.url).port}`, tunnelCompany, tunnelDocument)).toMatch(/^https:\/\/mock-team\.example\.dev\/v1\//);
    const admin = mockAdminClient(behindTunnel.url, { apiKey: sandboxKey, adminToken: 'a-token-of-the-team' });
    const created = await admin.POST('/_mock/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/hook', relay: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } } });
    expect(created.response.status).toBe(201);
    const relayed = created.data?.payload;
    expect(relayed?.relay?.url).toMatch(/^https:\/\/mock-team\.example\.dev\/_mock\/relay\//);
  });
});
