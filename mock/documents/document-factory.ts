/** Makes a company's formation documents: the PDF, its metadata and checksum. */
import { createHash } from 'node:crypto';
import type { Company, DocumentType, EntityType } from '../../generated/openapi.js';
import type { Environment } from '../auth/api-keys.ts';
import { newId } from '../ids.ts';
import { documentTypesFor } from './content.ts';
import type { StoredDocument } from './document-records.ts';

export interface DocumentFactory {
  typesFor(entityType: EntityType): readonly DocumentType[];
  create(company: Company, type: DocumentType, at: Date): Promise<StoredDocument>;
}

export function createDocumentFactory(environment: Environment): DocumentFactory {
  return {
    typesFor: documentTypesFor,
    async create(company, type, at) {
      // Loaded on first use: the PDF library is the slowest module to load, and most runs make no document.
      const { documentFileName, renderDocumentPdf } = await import('./pdf.ts');
      const file = await renderDocumentPdf({ type, company, environment, issuedAt: at });
      return {
        file,
        document: {
          documentId: newId('doc'),
          serviceCompanyId: company.serviceCompanyId,
          type,
          fileName: documentFileName(type),
          contentType: 'application/pdf',
          sizeBytes: file.byteLength,
          sha256: createHash('sha256').update(file).digest('hex'),
          readyAt: at.toISOString(),
        },
      };
    },
  };
}
