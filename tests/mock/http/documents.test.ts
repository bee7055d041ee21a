/**
 * The mock's own download URLs: where and for how long it issues them (its origin; 15 minutes unless
 * --download-url-ttl says otherwise; whole seconds), and how leniently it reads one (its parameters in any order).
 * What the contract promises of documents and their URLs (the order they are listed in, the PDFs' size and SHA-256,
 * no key needed, a URL valid 15 minutes and refused once expired or altered) is tested in
 * contract-tests/documents.test.ts, against the mock and any sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractFacts } from '../../../generated/contract-facts.ts';
import type { Company, Document, DocumentWithDownloadUrl } from '../../../generated/openapi.js';
import { createCompany, createCustomer, llcBody, simulate, sleep } from '../support/http-fixtures.ts';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { startTestMock, type TestMock } from '../support/mock-harness.ts';

let mock: TestMock;
let company: Company;
let documents: Document[];

/** A completed LLC and its documents. */
async function completedCompany(on: TestMock): Promise<{ company: Company; documents: Document[] }> {
  const customer = await createCustomer(on);
  const created = await createCompany(on, llcBody(customer.serviceCustomerId));
  expect((await simulate(on, created.serviceCompanyId, { target: 'COMPLETED' })).status).toBe(200);
  return { company: created, documents: (await on.call(`/v1/partner/companies/${created.serviceCompanyId}/documents`)).json.payload.data };
}

// The default TTL (15 minutes): a URL issued here cannot expire before the test uses it, however slow the machine.
beforeAll(async () => {
  mock = await startTestMock();
  ({ company, documents } = await completedCompany(mock));
});
afterAll(() => closeCheckingJournal(mock));

async function documentWithUrl(document: Document, on = mock, of = company): Promise<DocumentWithDownloadUrl> {
  const response = await on.call(`/v1/partner/companies/${of.serviceCompanyId}/documents/${document.documentId}`);
  expect(response.status).toBe(200);
  return response.json.payload;
}

/** Fetches a URL as a browser handed it would: no Authorization header. */
async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array; json?: any }> {
  const response = await fetch(url);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  return { status: response.status, headers: response.headers, bytes, json };
}

function withQuery(url: string, name: string, change: (value: string) => string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, change(parsed.searchParams.get(name) ?? ''));
  return parsed.toString();
}

describe('getCompanyDocument', () => {
  // The contract's downloadUrlValiditySeconds (x-service-limits): 15 minutes.
  const validityMs = contractFacts.limits.downloadUrlValiditySeconds * 1000;

  it('issues its downloadUrl on its own origin, for 15 minutes by default, expiring on a whole second', async () => {
    const before = Date.now();
    const found = await documentWithUrl(documents[0]!);
    const after = Date.now();
    const url = new URL(found.downloadUrl);
    expect(`${url.protocol}//${url.host}`).toBe(mock.url);
    const expiresAt = Date.parse(found.downloadUrlExpiresAt);
    expect(expiresAt).toBe(Number(url.searchParams.get('expires')) * 1000);
    // Issued in whole seconds.
    expect(expiresAt).toBeGreaterThan(before + validityMs - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + validityMs);
  });
});

describe('the download URL', () => {
  // The contract promises the URL as issued; the mock reads its two parameters by name, in any order.
  it('is served with its parameters in another order', async () => {
    const { downloadUrl } = await documentWithUrl(documents[0]!);
    const url = new URL(downloadUrl);
    const reordered = `${url.origin}${url.pathname}?signature=${url.searchParams.get('signature')}&expires=${url.searchParams.get('expires')}`;
    expect(reordered).not.toBe(downloadUrl);
    expect((await download(reordered)).status).toBe(200);
  });
});

describe('a download URL past the TTL the mock was started with', () => {
  let short: TestMock | undefined;
  afterAll(() => closeCheckingJournal(short));

  it('expires when downloadUrlTtlMs says, then is refused with 403 E_DOWNLOAD_URL_EXPIRED', async () => {
    short = await startTestMock({ downloadUrlTtlMs: 1000 });
    const completed = await completedCompany(short);
    const found = await documentWithUrl(completed.documents[0]!, short, completed.company);
    expect(Date.parse(found.downloadUrlExpiresAt)).toBeLessThanOrEqual(Date.now() + 1000);
    await sleep(2100);
    const expired = await download(found.downloadUrl);
    expect(expired.status).toBe(403);
    expect(expired.json).toMatchObject({ payload: null, error: { code: 'E_DOWNLOAD_URL_EXPIRED' } });
    // Expired is told apart from altered only for a URL whose signature matches.
    const altered = await download(withQuery(found.downloadUrl, 'expires', (expires) => String(Number(expires) + 1)));
    expect(altered.json.error.code).toBe('E_DOWNLOAD_URL_INVALID');
  });
});
