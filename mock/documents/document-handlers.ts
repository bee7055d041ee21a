/** listCompanyDocuments, getCompanyDocument (with a signed URL), downloadCompanyDocument (by that URL). */
import { getCompany } from '../companies/company-records.ts';
import { ApiError, notFound } from '../http/api-error.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { listPayload, readListQuery } from '../pagination/page.ts';
import { partnerOf, type Handlers } from '../pipeline/handler.ts';
import type { Store } from '../store/store.ts';
import { getDocument, listDocuments } from './document-records.ts';
import type { DownloadUrlSigner } from './signed-url.ts';

export function documentHandlers({ store, cursors, signer }: { store: Store; cursors: CursorCodec; signer: DownloadUrlSigner }): Pick<Handlers, 'listCompanyDocuments' | 'getCompanyDocument' | 'downloadCompanyDocument'> {
  return {
    async listCompanyDocuments(context) {
      const partner = partnerOf(context);
      const { companyId } = context.path;
      const filters = { list: 'documents', partner: partner.id, companyId };
      const request = readListQuery(context.query, cursors, filters);
      const page = await store.read(function (tx) {
        if (!(getCompany(tx, partner.id, companyId))) throw notFound(`company ${companyId}`);
        return listDocuments(tx, partner.id, companyId, request);
      });
      return { status: 200, payload: listPayload(page, cursors, filters) };
    },

    async getCompanyDocument(context) {
      const partner = partnerOf(context);
      const { companyId, documentId } = context.path;
      const stored = await store.read(function (tx) {
        if (!(getCompany(tx, partner.id, companyId))) throw notFound(`company ${companyId}`);
        return getDocument(tx, partner.id, companyId, documentId);
      });
      if (!stored) throw notFound(`document ${documentId} of company ${companyId}`);
      const { url, expiresAt } = signer.sign({ baseUrl: context.baseUrl, companyId, documentId });
      return { status: 200, payload: { ...stored.document, downloadUrl: url, downloadUrlExpiresAt: expiresAt.toISOString() } };
    },

    async downloadCompanyDocument(context) {
      const { companyId, documentId } = context.path;
      // Exactly the URL issued: `expires` and `signature` once each, as sent (not coerced), and nothing else.
      // Not `context.query`: validation coerces `0900`, `900.0` and `9e2` all to 900 and keeps only the first of a
      // repeated parameter, so altered URLs would pass for the one that was signed.
      const query = context.rawQuery;
      const [expires, signature] = [query.getAll('expires'), query.getAll('signature')];
      const exact = [...query.keys()].length === 2 && expires.length === 1 && signature.length === 1;
      const verdict = exact ? signer.verify({ companyId, documentId, expires: expires[0] as string, signature: signature[0] as string }) : 'invalid';
      if (verdict === 'expired') throw new ApiError(403, 'E_DOWNLOAD_URL_EXPIRED', 'This download URL has expired; ask getCompanyDocument for a fresh one.');
      if (verdict !== 'valid') throw new ApiError(403, 'E_DOWNLOAD_URL_INVALID', 'This download URL is not valid; ask getCompanyDocument for a fresh one.');
      // A signed URL names no partner: the signed ids are the capability.
      const stored = await store.read((tx) => getDocument(tx, undefined, companyId, documentId));
      if (!stored) throw notFound(`document ${documentId} of company ${companyId}`);
      return {
        status: 200,
        file: stored.file,
        contentType: 'application/pdf',
        headers: { 'content-disposition': `attachment; filename="${stored.document.fileName}"` },
      };
    },
  };
}
