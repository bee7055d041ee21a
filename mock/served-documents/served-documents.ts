/**
 * The API's own documents, served by the mock beside the API: the reference docs (as `npm run generate` built them,
 * or live: live-docs.ts), the bundled contract (listing the mock as its first server, so that Postman, Insomnia or a
 * generated client pointed at /openapi.json call the mock, not the sandbox) and the changelog the docs link to.
 */
import { readFile } from 'node:fs/promises';
import type { ContractDocument } from '../../contract-model/document.ts';
import { changelogPath, generatedPath } from '../../contract-model/generated-files.ts';
import { consoleDocuments, consolePath } from './console-files.ts';
import { liveDocs } from './live-docs.ts';
import { createStaticDocuments, freshFile, type DocumentsChannel } from './static-documents.ts';

const apiDocsPath = generatedPath('docs', 'index.html');

export interface DocumentsOptions {
  /** The mock's environment, which the contract's first server names. */
  environment: string;
  /** `--docs`: the standalone page `npm run generate` built, or the live one. */
  docs: 'built' | 'live';
}

/** `linkBase`: the URL of the links a document makes, for the Host a request came with (http/own-hosts.ts). */
export function servedDocuments(contract: ContractDocument, linkBase: (host: string | undefined) => string, options: DocumentsOptions): DocumentsChannel {
  const served = perOrigin((origin) => Buffer.from(JSON.stringify(withMockServer(contract, origin, options.environment))));
  const firstServer = String((contract.servers as { url?: unknown }[] | undefined)?.[0]?.url ?? '');
  const asServed = perContentAndOrigin((content, origin) => withMockSamples(content, firstServer, origin));
  // The built page is read again when `npm run generate` rewrites it, so that it follows without a restart.
  const builtPage = freshFile(apiDocsPath, withConsoleLink);
  const built = { contentType: 'text/html; charset=utf-8', read: async (origin: string) => asServed((await builtPage()) as Buffer, origin) };
  const docs = options.docs === 'live' ? liveDocs(contract, { asServed, page: withConsoleLink }) : { '/': built, '/docs': built };
  return createStaticDocuments({
    ...docs,
    '/openapi.json': { contentType: 'application/json', read: async (origin) => served(origin) },
    // The docs link to it; read on each request, so a release shows without a restart.
    '/CHANGELOG.md': { contentType: 'text/markdown; charset=utf-8', read: () => readFile(changelogPath).catch(() => undefined) },
    ...consoleDocuments(),
  }, linkBase);
}

/**
 * Origins a document is kept made for at once: the few a mock is reached by (localhost, 127.0.0.1, its name, its
 * LAN address). A client naming many others (any IP address is the mock's own) only makes them again.
 */
const originsKept = 8;

/** What `make` gives for an origin, made once per origin while few are asked for. */
function perOrigin(make: (origin: string) => Buffer): (origin: string) => Buffer {
  const made = new Map<string, Buffer>();
  return (origin) => {
    let content = made.get(origin);
    if (content === undefined) {
      if (made.size >= originsKept) made.clear();
      made.set(origin, (content = make(origin)));
    }
    return content;
  };
}

/** The same, per content too: a file read again (the docs rebuilt) is made again for each origin. */
function perContentAndOrigin(make: (content: Buffer, origin: string) => Buffer): (content: Buffer, origin: string) => Buffer {
  const byContent = new WeakMap<Buffer, (origin: string) => Buffer>();
  return (content, origin) => {
    let forContent = byContent.get(content);
    if (!forContent) byContent.set(content, (forContent = perOrigin((asked) => make(content, asked))));
    return forContent(origin);
  };
}

/** A key the mock takes as it comes (any well-formed sandbox key is a partner), for samples copied from its docs. */
export const sampleKey = 'dk_test_0123456789abcdefghijklmn';

/**
 * The request samples of the docs as this mock serves them: their curl commands call the mock, with a key it takes,
 * so that one copied from the page runs here rather than leaving the machine for the sandbox. Only the samples'
 * commands change (they live in the page's data, which Redoc renders in the browser: the built page's, or the live
 * page's JSON); the servers the docs list stay the published ones, and the docs built in generated/ keep the sandbox.
 */
function withMockSamples(content: Buffer, publishedServer: string, mockUrl: string): Buffer {
  if (publishedServer === '') return content;
  const text = content.toString('utf8');
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
