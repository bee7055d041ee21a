/**
 * A company's documents as the store keeps them: the metadata and the file, in the order they became ready. They
 * are written by the formation step that makes them ready (formation/timeline.ts). A signed download URL names no
 * partner (the signed ids are the capability), so a document is also found by its company and id alone.
 */
import type { Document } from '../../generated/openapi.js';
import { pageOfIndex, type Page, type PageRequest } from '../pagination/page.ts';
import { nextPosition } from '../pagination/positions.ts';
import { key, parts, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import { announce } from '../changes/change-topics.ts';

export interface StoredDocument {
  document: Document;
  file: Uint8Array;
}

interface DocumentEntry {
  partnerId: string;
  position: number;
  document: Document;
}

/** company id, document id → the document. */
const documents = table<DocumentEntry>('documents');
const files = table<Uint8Array>('document_files', { bytes: true });
/** partner, company id, position → document id. */
const byPosition = table<string>('documents_by_position', { ordered: true });

export function insertDocument(tx: Tx, partnerId: string, stored: StoredDocument): void {
  const { serviceCompanyId: companyId, documentId } = stored.document;
  const position = nextPosition(tx, partnerId);
  tx.put(documents, key(companyId, documentId), { partnerId, position, document: stored.document });
  tx.put(files, key(companyId, documentId), stored.file);
  tx.put(byPosition, key(partnerId, companyId, position), documentId);
  announce(tx, 'documents', partnerId);
}

/** In the order they became ready. */
export function listDocuments(tx: Tx, partnerId: string, companyId: string, page: PageRequest): Page<Document> {
  return pageOfIndex(tx, byPosition, [partnerId, companyId], page, {
    reverse: false,
    load: function (ids) {
      return (tx.getMany(documents, ids.map((id) => key(companyId, id)), { snapshot: true })).map((entry) => entry?.document);
    },
  });
}

export function getDocument(tx: Tx, partnerId: string | undefined, companyId: string, documentId: string): StoredDocument | undefined {
  const entry = tx.get(documents, key(companyId, documentId));
  if (!entry || (partnerId !== undefined && entry.partnerId !== partnerId)) return undefined;
  const file = tx.get(files, key(companyId, documentId));
  return file === undefined ? undefined : { document: entry.document, file };
}

/** Forgets up to `limit` of the partner's documents; true when none is left. */
export function forgetDocuments(tx: Tx, partnerId: string, limit: number): boolean {
  const entries = tx.scan(byPosition, within([partnerId], { limit }));
  for (const entry of entries) {
    const companyId = parts(entry.key)[1] as string;
    tx.delete(byPosition, entry.key);
    tx.delete(documents, key(companyId, entry.value));
    tx.delete(files, key(companyId, entry.value));
  }
  return entries.length < limit;
}
