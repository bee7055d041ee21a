/**
 * The API's own documents, served by the mock beside the API: the reference docs, the bundled contract (listing
 * the mock as its first server, so that Postman, Insomnia or a generated client pointed at /openapi.json call the
 * mock, not the sandbox) and the changelog the docs link to.
 */
import { readFile, stat } from 'node:fs/promises';
import type { ContractDocument } from '../../contract-model/document.ts';
import { changelogPath, generatedPath } from '../../contract-model/generated-files.ts';
import { consoleDocuments, consolePath } from './console-files.ts';
import { createStaticDocuments, type DocumentsChannel } from './static-documents.ts';

const apiDocsPath = generatedPath('docs', 'index.html');

export function servedDocuments(contract: ContractDocument, publicUrl: () => string, environment: string): DocumentsChannel {
  // Made on first request, once the mock knows its URL.
  let contractJson: Buffer | undefined;
  const served = () => (contractJson ??= Buffer.from(JSON.stringify(withMockServer(contract, publicUrl(), environment))));
  const firstServer = String((contract.servers as { url?: unknown }[] | undefined)?.[0]?.url ?? '');
  const docs = { contentType: 'text/html; charset=utf-8', read: freshFile(apiDocsPath, (html) => withConsoleLink(withMockSamples(html, firstServer, publicUrl()))) };
  return createStaticDocuments({
    '/': docs,
    '/docs': docs,
    '/openapi.json': { contentType: 'application/json', read: async () => served() },
    // The docs link to it; read on each request, so a release shows without a restart.
    '/CHANGELOG.md': { contentType: 'text/markdown; charset=utf-8', read: () => readFile(changelogPath).catch(() => undefined) },
    ...consoleDocuments(),
  });
}

/**
 * A file read again only when it changed (its modification time): `npm run dev` rewrites the docs a few seconds
 * after each save, and the page must follow without a restart; otherwise one read serves every request, and the
 * same bytes keep their compressed forms (static-documents.ts).
 */
function freshFile(path: string, transform: (content: Buffer) => Buffer): () => Promise<Buffer | undefined> {
  let kept: { mtimeMs: number; content: Promise<Buffer> } | undefined;
  return async () => {
    const { mtimeMs } = await stat(path);
    if (kept?.mtimeMs !== mtimeMs) kept = { mtimeMs, content: readFile(path).then(transform) };
    return kept.content;
  };
}

/** A key the mock takes as it comes (any well-formed sandbox key is a partner), for samples copied from its docs. */
export const sampleKey = 'dk_test_0123456789abcdefghijklmn';

/**
 * The request samples of the docs as this mock serves them: their curl commands call the mock, with a key it takes,
 * so that one copied from the page runs here rather than leaving the machine for the sandbox. Only the samples'
 * commands change (they live in the page's data, which Redoc renders in the browser); the servers the docs list stay
 * the published ones, and the docs built in generated/ keep the sandbox.
 */
function withMockSamples(html: Buffer, publishedServer: string, mockUrl: string): Buffer {
  if (publishedServer === '') return html;
  const text = html.toString('utf8');
  const escaped = publishedServer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Buffer.from(
    text
      .replace(new RegExp(`(curl -X [A-Z]+ ')${escaped}`, 'g'), `$1${mockUrl}`)
      .replaceAll(`-H 'Authorization: dk_test_…'`, `-H 'Authorization: ${sampleKey}'`),
  );
}

/**
 * The reference docs as this mock serves them: with a link to its console, fixed in a corner. Added here, not when
 * the docs are built, since the docs are the API's and published without a mock.
 */
function withConsoleLink(html: Buffer): Buffer {
  const text = html.toString('utf8');
  const end = text.lastIndexOf('</body>');
  if (end < 0) return html;
  const link = `<a href="${consolePath}" style="position:fixed;right:16px;bottom:16px;z-index:100;padding:8px 14px;border-radius:6px;background:#0a58ca;color:#fff;font:600 14px system-ui,sans-serif;text-decoration:none;box-shadow:0 2px 6px rgba(0,0,0,.25)">Mock console</a>`;
  return Buffer.from(`${text.slice(0, end)}${link}\n${text.slice(end)}`);
}

function withMockServer(contract: ContractDocument, url: string, environment: string): ContractDocument {
  const server = { url, description: `This mock of the API (its ${environment} environment), for prototyping: see the servers below for the real ones.` };
  return { ...contract, servers: [server, ...((contract.servers as unknown[] | undefined) ?? [])] };
}
