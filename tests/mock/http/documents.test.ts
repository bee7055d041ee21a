/** Formation documents: listed once ready, fetched by a signed URL that needs no key, refused when altered or old. */
import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

// The published TTL (15 minutes): a URL issued here cannot expire before the test uses it, however slow the machine.
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

describe('listCompanyDocuments', () => {
  it('lists nothing before the formation completes', async () => {
    const customer = await createCustomer(mock);
    const pending = await createCompany(mock, llcBody(customer.serviceCustomerId));
    const response = await mock.call(`/v1/partner/companies/${pending.serviceCompanyId}/documents`);
    expect(response.json.payload).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it('lists the three documents of a completed LLC, in the order they became ready', () => {
    expect(documents.map((document) => document.type)).toEqual(['ARTICLES_OF_ORGANIZATION', 'OPERATING_AGREEMENT', 'EIN_CONFIRMATION_LETTER']);
    for (const document of documents) {
      expect(document).toMatchObject({ serviceCompanyId: company.serviceCompanyId, contentType: 'application/pdf' });
      expect(document.fileName).toMatch(/^[A-Za-z0-9._-]+\.pdf$/);
    }
    expect(new Set(documents.map((document) => document.documentId)).size).toBe(3);
  });

  it('pages them one at a time in the same order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = (await mock.call(`/v1/partner/companies/${company.serviceCompanyId}/documents?limit=1${query}`)).json.payload;
      expect(page.data).toHaveLength(1);
      seen.push(page.data[0].documentId);
      cursor = page.hasMore ? page.nextCursor : null;
    } while (cursor);
    expect(seen).toEqual(documents.map((document) => document.documentId));
  });
});

describe('getCompanyDocument', () => {
  it('gives the metadata and a signed downloadUrl valid for 15 minutes', async () => {
    const before = Date.now();
    const found = await documentWithUrl(documents[0]!);
    const after = Date.now();
    expect(found).toMatchObject(documents[0]!);
    const url = new URL(found.downloadUrl);
    expect(`${url.protocol}//${url.host}`).toBe(mock.url);
    expect(url.pathname).toBe(`/v1/partner/companies/${company.serviceCompanyId}/documents/${documents[0]!.documentId}/content`);
    expect(url.searchParams.get('expires')).toMatch(/^\d+$/);
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]+$/);
    const expiresAt = Date.parse(found.downloadUrlExpiresAt);
    expect(expiresAt).toBe(Number(url.searchParams.get('expires')) * 1000);
    // Issued in whole seconds.
    expect(expiresAt).toBeGreaterThan(before + 15 * 60_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + 15 * 60_000);
  });

  it('answers 404 E_NOT_FOUND for a document the company does not have', async () => {
    const response = await mock.call(`/v1/partner/companies/${company.serviceCompanyId}/documents/doc_000000000000000000000000`);
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('E_NOT_FOUND');
  });
});

describe('the download URL', () => {
  it.each([0, 1, 2])('serves document %i as a PDF without Authorization, matching its sha256, size and file name', async (index) => {
    const document = documents[index]!;
    const { downloadUrl } = await documentWithUrl(document);
    const response = await download(downloadUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${document.fileName}"`);
    expect(new TextDecoder().decode(response.bytes.subarray(0, 5))).toBe('%PDF-');
    expect(response.bytes.byteLength).toBe(document.sizeBytes);
    expect(createHash('sha256').update(response.bytes).digest('hex')).toBe(document.sha256);
    const pdf = await PDFDocument.load(response.bytes);
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
  });

  it('refuses an altered signature with 403 E_DOWNLOAD_URL_INVALID', async () => {
    const { downloadUrl } = await documentWithUrl(documents[0]!);
    const flipped = withQuery(downloadUrl, 'signature', (signature) => `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const response = await download(flipped);
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ payload: null, error: { code: 'E_DOWNLOAD_URL_INVALID' } });
    expect((await download(withQuery(downloadUrl, 'signature', (signature) => signature.slice(0, -1)))).json.error.code).toBe('E_DOWNLOAD_URL_INVALID');
  });

  it('refuses an altered expiry with 403 E_DOWNLOAD_URL_INVALID, even one further in the future', async () => {
    const { downloadUrl } = await documentWithUrl(documents[0]!);
    const later = await download(withQuery(downloadUrl, 'expires', (expires) => String(Number(expires) + 3600)));
    expect(later.status).toBe(403);
    expect(later.json.error.code).toBe('E_DOWNLOAD_URL_INVALID');
    const earlier = await download(withQuery(downloadUrl, 'expires', (expires) => String(Number(expires) - 3600)));
    expect(earlier.json.error.code).toBe('E_DOWNLOAD_URL_INVALID');
  });

  it('refuses, with 403 E_DOWNLOAD_URL_INVALID, every URL that is not exactly the one issued', async () => {
    const { downloadUrl } = await documentWithUrl(documents[0]!);
    const url = new URL(downloadUrl);
    const expires = url.searchParams.get('expires') as string;
    const signature = url.searchParams.get('signature') as string;
    const base = `${url.origin}${url.pathname}`;
    const altered = [
      `${base}?expires=0${expires}&signature=${signature}`,
      `${base}?expires=${expires}.0&signature=${signature}`,
      `${base}?expires=${(Number(expires) / 1e9).toFixed(9).replace(/0+$/, '')}e9&signature=${signature}`,
      `${downloadUrl}&signature=${signature}`,
      `${downloadUrl}&signature=AAAA`,
      `${downloadUrl}&expires=${expires}`,
      `${base}?expires=${Number(expires) + 99}&expires=${expires}&signature=${signature}`,
      `${downloadUrl}&download=1`,
    ];
    for (const candidate of altered) {
      const answer = await download(candidate);
      expect([answer.status, answer.json?.error?.code], candidate).toEqual([403, 'E_DOWNLOAD_URL_INVALID']);
    }
    expect((await download(`${base}?signature=${signature}&expires=${expires}`)).status).toBe(200);
    expect((await download(downloadUrl)).status).toBe(200);
  });

  it("refuses one document's signature on another document", async () => {
    const first = await documentWithUrl(documents[0]!);
    const second = new URL((await documentWithUrl(documents[1]!)).downloadUrl);
    const swapped = new URL(first.downloadUrl);
    swapped.pathname = second.pathname;
    const response = await download(swapped.toString());
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('E_DOWNLOAD_URL_INVALID');
  });

  it('serves again with a fresh URL for the same document', async () => {
    const first = await documentWithUrl(documents[2]!);
    const second = await documentWithUrl(documents[2]!);
    expect((await download(first.downloadUrl)).status).toBe(200);
    expect((await download(second.downloadUrl)).status).toBe(200);
  });
});

describe('a download URL past its TTL', () => {
  let short: TestMock | undefined;
  afterAll(() => closeCheckingJournal(short));

  it('is refused with 403 E_DOWNLOAD_URL_EXPIRED', async () => {
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
