/**
 * listCompanyDocuments, getCompanyDocument and the signed download URL (downloadCompanyDocument): the files are
 * real PDFs whose size and SHA-256 are the ones listed, the URL needs no key, and an expired or altered URL is
 * refused.
 */
import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { paginate } from '../client/index.ts';
import type { Company, Document } from '../generated/openapi.js';
import { api, apiError, completedCompany, newCompany, sleep, unknownId } from './support/fixtures.ts';
import { asOperation, rawRequest, recordSkip } from './support/observe.ts';

const expectedTypes = {
  LLC: ['ARTICLES_OF_ORGANIZATION', 'OPERATING_AGREEMENT', 'EIN_CONFIRMATION_LETTER'],
  CCorp: ['CERTIFICATE_OF_INCORPORATION', 'BYLAWS', 'EIN_CONFIRMATION_LETTER'],
};

let llc: Company;
let llcDocuments: Document[];

beforeAll(async () => {
  llc = await completedCompany('LLC');
  llcDocuments = (await api.listCompanyDocuments({ companyId: llc.serviceCompanyId })).payload.data;
});

async function freshUrl(document: Document): Promise<string> {
  const { payload } = await api.getCompanyDocument({ companyId: document.serviceCompanyId, documentId: document.documentId });
  return payload.downloadUrl;
}

/** The URL with one query parameter replaced (or removed, with `null`). */
function withParameter(url: string, name: string, value: string | null): string {
  const altered = new URL(url);
  if (value === null) altered.searchParams.delete(name);
  else altered.searchParams.set(name, value);
  return altered.toString();
}

describe('listCompanyDocuments', () => {
  it.each(['LLC', 'CCorp'] as const)('lists the three documents of a completed %s', async (entityType) => {
    const company = entityType === 'LLC' ? llc : await completedCompany('CCorp');
    const documents = entityType === 'LLC' ? llcDocuments : (await api.listCompanyDocuments({ companyId: company.serviceCompanyId })).payload.data;
    expect(documents.map((document) => document.type).sort()).toEqual([...expectedTypes[entityType]].sort());
    expect(documents.every((document) => document.serviceCompanyId === company.serviceCompanyId && document.contentType === 'application/pdf')).toBe(true);
  });

  it('pages through them one at a time', async () => {
    const ids: string[] = [];
    for await (const document of paginate(api.listCompanyDocuments, { companyId: llc.serviceCompanyId, limit: 1 })) ids.push(document.documentId);
    expect(ids.sort()).toEqual(llcDocuments.map((document) => document.documentId).sort());
  });

  it('lists nothing before the formation completes', async () => {
    const pending = await newCompany('LLC');
    const { payload } = await api.listCompanyDocuments({ companyId: pending.serviceCompanyId });
    expect(payload).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it('answers 404 for a company no one has, and 400 for a limit out of range', async () => {
    const missing = await apiError(api.listCompanyDocuments({ companyId: unknownId('com') }));
    expect([missing.status, missing.code]).toEqual([404, 'E_NOT_FOUND']);
    const badLimit = await apiError(api.listCompanyDocuments({ companyId: llc.serviceCompanyId, limit: 0 }));
    expect([badLimit.status, badLimit.code]).toEqual([400, 'E_VALIDATION_FAILED']);
  });
});

describe('getCompanyDocument', () => {
  it('returns the metadata and a download URL valid for at most 15 minutes', async () => {
    for (const document of llcDocuments) {
      const before = Date.now();
      const { payload } = await api.getCompanyDocument({ companyId: llc.serviceCompanyId, documentId: document.documentId });
      expect(payload).toMatchObject(document);
      const expiresAt = Date.parse(payload.downloadUrlExpiresAt);
      expect(expiresAt).toBeGreaterThan(before - 1_000);
      expect(expiresAt - before).toBeLessThanOrEqual(15 * 60 * 1000 + 1_000);
    }
  });

  it('answers 404 for a document the company does not have, and 400 for an id that is not a document id', async () => {
    const missing = await apiError(api.getCompanyDocument({ companyId: llc.serviceCompanyId, documentId: unknownId('doc') }));
    expect([missing.status, missing.code]).toEqual([404, 'E_NOT_FOUND']);
    const malformed = await apiError(api.getCompanyDocument({ companyId: llc.serviceCompanyId, documentId: 'document-1' }));
    expect(malformed.status).toBe(400);
    expect(malformed.details).toContainEqual(expect.objectContaining({ in: 'path', field: '/documentId' }));
  });
});

describe('the download URL (downloadCompanyDocument)', () => {
  it('serves each file as a PDF whose size and SHA-256 are the listed ones', async () => {
    for (const document of llcDocuments) {
      const url = await freshUrl(document);
      const { payload: bytes, meta } = await asOperation('downloadCompanyDocument', () => api.downloadDocument(url));
      expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe('%PDF-');
      expect(bytes.byteLength).toBe(document.sizeBytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(document.sha256);
      const pdf = await PDFDocument.load(bytes);
      expect(pdf.getPageCount()).toBeGreaterThan(0);
      expect(meta.response.headers.get('content-type')?.split(';')[0]).toBe('application/pdf');
      expect(meta.response.headers.get('content-disposition')).toBe(`attachment; filename="${document.fileName}"`);
    }
  });

  it('needs no Authorization header: the URL is the capability', async () => {
    const document = llcDocuments[0] as Document;
    const response = await rawRequest({ method: 'GET', path: await freshUrl(document), authorization: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')?.split(';')[0]).toBe('application/pdf');
  });

  it('refuses an altered URL with 403 E_DOWNLOAD_URL_INVALID: signature, expiry, or another document', async () => {
    const [first, second] = llcDocuments as [Document, Document];
    const url = new URL(await freshUrl(first));
    const signature = url.searchParams.get('signature') ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const later = String(Number(url.searchParams.get('expires')) + 3600);
    const otherDocument = url.toString().replace(first.documentId, second.documentId);
    for (const altered of [withParameter(url.toString(), 'signature', flipped), withParameter(url.toString(), 'expires', later), otherDocument]) {
      const error = await apiError(asOperation('downloadCompanyDocument', () => api.downloadDocument(altered)));
      expect([error.status, error.code], altered).toEqual([403, 'E_DOWNLOAD_URL_INVALID']);
    }
  });

  it('refuses a URL without its signature or expiry (400 on the query)', async () => {
    const url = await freshUrl(llcDocuments[0] as Document);
    for (const name of ['signature', 'expires']) {
      const error = await apiError(asOperation('downloadCompanyDocument', () => api.downloadDocument(withParameter(url, name, null))));
      expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
      expect(error.details).toContainEqual(expect.objectContaining({ in: 'query', field: `/${name}`, code: 'E_REQUIRED' }));
    }
  });

  it('refuses an expired URL with 403 E_DOWNLOAD_URL_EXPIRED', async (context) => {
    const document = llcDocuments[0] as Document;
    const { payload } = await api.getCompanyDocument({ companyId: llc.serviceCompanyId, documentId: document.documentId });
    const waitMs = Date.parse(payload.downloadUrlExpiresAt) - Date.now() + 1_200;
    if (waitMs > 30_000) {
      const reason = `download URLs live ${Math.round(waitMs / 60_000)} min on this target (the contract publishes 15); the suite's mock is started with --download-url-ttl 2s for this check`;
      recordSkip('expired download URL (E_DOWNLOAD_URL_EXPIRED)', reason);
      context.skip(reason);
    }
    await sleep(Math.max(0, waitMs));
    const error = await apiError(asOperation('downloadCompanyDocument', () => api.downloadDocument(payload.downloadUrl)));
    expect([error.status, error.code]).toEqual([403, 'E_DOWNLOAD_URL_EXPIRED']);
    // A fresh URL from getCompanyDocument works again.
    const { meta } = await api.downloadDocument(await freshUrl(document));
    expect(meta.status).toBe(200);
  });
});
