/**
 * The download URL over HTTP, as an attacker would alter it: only the exact URL the mock issued is served. Each
 * altered form below once returned the PDF, because `expires` was read as a number before the signature check and
 * only the first of a repeated parameter was read. Each must now be refused with the contract's own 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company, Document } from '../../../generated/openapi.js';
import { contract, createCompany, createCustomer, example, llcBody, simulate, sleep } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

interface Refusal {
  payload: null;
  error: { code: string; message: string; requestId: string };
}

let mock: TestMock;

/** A completed LLC and its first document, on the given mock. */
async function completedDocument(on: TestMock): Promise<{ company: Company; document: Document }> {
  const customer = await createCustomer(on);
  const company = await createCompany(on, llcBody(customer.serviceCustomerId));
  expect((await simulate(on, company.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);
  const listed = await on.call(`/v1/partner/companies/${company.serviceCompanyId}/documents`);
  return { company, document: listed.json.payload.data[0] };
}

/** A freshly issued download URL, split into the parts an attacker recombines. */
async function issuedUrl(on: TestMock, { company, document }: { company: Company; document: Document }) {
  const response = await on.call(`/v1/partner/companies/${company.serviceCompanyId}/documents/${document.documentId}`);
  expect(response.status).toBe(200);
  const url: string = response.json.payload.downloadUrl;
  const parsed = new URL(url);
  return {
    url,
    base: `${parsed.origin}${parsed.pathname}`,
    expires: parsed.searchParams.get('expires') as string,
    signature: parsed.searchParams.get('signature') as string,
  };
}

/** Fetches a URL as a browser handed it would: no Authorization header. */
async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array; json?: any }> {
  const response = await fetch(url);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  return { status: response.status, headers: response.headers, bytes, json };
}

/** The 403 exactly as the contract documents it: its example's envelope and message, and its response headers. */
function expectDocumentedRefusal(answer: Awaited<ReturnType<typeof download>>, exampleName: string, label: string): void {
  const documented = example<Refusal>(exampleName);
  expect(answer.status, label).toBe(403);
  expect(answer.headers.get('content-type'), label).toMatch(/^application\/json\b/);
  expect(answer.json, label).toEqual({ ...documented, error: { ...documented.error, requestId: expect.any(String) } });
  expect(answer.headers.get('x-request-id'), label).toBe(answer.json.error.requestId);
  for (const header of Object.keys(contract.components.responses.DownloadForbidden.headers)) {
    expect(answer.headers.get(header), `${label}: header ${header}`).not.toBeNull();
  }
}

beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(() => closeCheckingJournal(mock));

describe('a download URL altered from the one issued', () => {
  let issued: Awaited<ReturnType<typeof issuedUrl>>;
  beforeAll(async () => {
    issued = await issuedUrl(mock, await completedDocument(mock));
  });

  // Each builds, from the issued URL, one that names the same expiry and carries the same valid signature.
  const altered: [string, (u: typeof issued) => string][] = [
    ['expires with a leading zero', ({ base, expires, signature }) => `${base}?expires=0${expires}&signature=${signature}`],
    ['expires with a decimal point', ({ base, expires, signature }) => `${base}?expires=${expires}.0&signature=${signature}`],
    // 1795344900 as 1.7953449e9: the same number, written with an exponent.
    [
      'expires with an exponent',
      ({ base, expires, signature }) => `${base}?expires=${`${expires[0]}.${expires.slice(1)}`.replace(/0+$/, '')}e${expires.length - 1}&signature=${signature}`,
    ],
    ['a second signature appended', ({ url, signature }) => `${url}&signature=${signature}`],
    ['a second expires appended', ({ url, expires }) => `${url}&expires=${expires}`],
    ['another parameter appended', ({ url }) => `${url}&download=1`],
  ];

  it.each(altered)('is refused with 403 E_DOWNLOAD_URL_INVALID: %s', async (label, alter) => {
    const candidate = alter(issued);
    expect(candidate).not.toBe(issued.url);
    expectDocumentedRefusal(await download(candidate), 'ErrorDownloadUrlInvalid', `${label} (${candidate})`);
  });

  it('while the URL exactly as issued is still served', async () => {
    const answer = await download(issued.url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(new TextDecoder().decode(answer.bytes.subarray(0, 5))).toBe('%PDF-');
  });
});

describe('a download URL past its expiry, unaltered', () => {
  let short: TestMock | undefined;
  afterAll(() => closeCheckingJournal(short));

  it('is refused with 403 E_DOWNLOAD_URL_EXPIRED', async () => {
    short = await startTestMock({ downloadUrlTtlMs: 1000 });
    const { url, expires } = await issuedUrl(short, await completedDocument(short));
    // Expired once the clock is past `expires` (whole seconds): at most two seconds from now.
    await sleep(Math.max(0, Number(expires) * 1000 + 100 - Date.now()));
    expectDocumentedRefusal(await download(url), 'ErrorDownloadUrlExpired', 'expired');
  });
});
