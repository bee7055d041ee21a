/**
 * The API's own documents, served by the mock beside the API: the reference docs, the bundled contract (listing
 * the mock as its first server, so that Postman, Insomnia or a generated client pointed at /openapi.json call the
 * mock, not the sandbox) and the changelog the docs link to.
 */
import { readFile } from 'node:fs/promises';
import type { ContractDocument } from '../../contract-model/document.ts';
import { changelogPath, generatedPath } from '../../contract-model/generated-files.ts';
import { createStaticDocuments, type DocumentsChannel } from './static-documents.ts';

const apiDocsPath = generatedPath('docs', 'index.html');

export function servedDocuments(contract: ContractDocument, publicUrl: () => string, environment: string): DocumentsChannel {
  // Made on first request, once the mock knows its URL.
  let contractJson: Buffer | undefined;
  const served = () => (contractJson ??= Buffer.from(JSON.stringify(withMockServer(contract, publicUrl(), environment))));
  let apiDocs: Promise<Buffer> | undefined;
  const docs = { contentType: 'text/html; charset=utf-8', read: () => (apiDocs ??= readFile(apiDocsPath)) };
  return createStaticDocuments({
    '/': docs,
    '/docs': docs,
    '/openapi.json': { contentType: 'application/json', read: async () => served() },
    // The docs link to it; read on each request, so a release shows without a restart.
    '/CHANGELOG.md': { contentType: 'text/markdown; charset=utf-8', read: () => readFile(changelogPath).catch(() => undefined) },
  });
}

function withMockServer(contract: ContractDocument, url: string, environment: string): ContractDocument {
  const server = { url, description: `This mock of the API (its ${environment} environment), for prototyping: see the servers below for the real ones.` };
  return { ...contract, servers: [server, ...((contract.servers as unknown[] | undefined) ?? [])] };
}
