/**
 * The reference docs as `npm run dev` serves them (`--docs live`): rendered in the browser from the contract being
 * served, rather than the standalone page `npm run generate` builds, which takes seconds per save. The page loads
 * Redoc's standalone script from the kit's node_modules (the one `redocly build-docs --inlineBundle` writes into the
 * built page, so both look alike), served by the mock itself so that the page works offline, and renders
 * `/docs/openapi.json`: the contract with what the built docs add to it (request samples, calling this mock, and
 * the Changes page made from CHANGELOG.md), its servers the published ones.
 *
 * The open page follows the contract: `/docs/events`, a stream of server-sent events, names the version of that
 * document (its ETag) as the page connects. A reload of the contract (app/server.ts) ends the streams of the
 * services it replaces; the page then fetches the document at once (a 304 when it holds that version already) and
 * renders a new version in place, where its reader was, and connects again, to the new services.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ContractDocument } from '../../contract-model/document.ts';
import { changelogPath } from '../../contract-model/generated-files.ts';
import { withChangesPage } from '../../scripts/changes-page.ts';
import { withCodeSamples } from '../../scripts/code-samples.ts';
import { withLocalBadge } from '../../scripts/redoc-badge.ts';
import type { AnswerStream } from '../http/answer.ts';
import { etagOf, freshFile, type ServedDocument } from './static-documents.ts';

export const liveDocsPaths = { page: '/docs', script: '/docs/live.js', redoc: '/docs/redoc.standalone.js', definition: '/docs/openapi.json', events: '/docs/events' } as const;

/** Where Redoc's standalone script is: in @redocly/cli, which a clone of the kit installs; undefined elsewhere. */
export function redocScriptPath(): string | undefined {
  let cli: string;
  try {
    cli = createRequire(import.meta.url).resolve('@redocly/cli/package.json');
  } catch {
    return undefined;
  }
  const script = join(dirname(cli), 'lib', 'chunks', 'redoc.standalone.js');
  return existsSync(script) ? script : undefined;
}

/** Read once per process (2 MB, the same on every request and every reload), its badge's logo made local. */
let redocScript: Buffer | undefined;
const readRedocScript = async () => (redocScript ??= Buffer.from(withLocalBadge(readFileSync(redocScriptPath() as string, 'utf8'))));

/**
 * What the page may do: load its scripts and its contract from the mock only (Redoc styles itself with inline
 * styles, and runs its search in a worker made from a blob), and never be framed by another site.
 */
const policy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);

function pageOf(contract: ContractDocument): Buffer {
  const title = escapeHtml(String((contract.info as { title?: unknown } | undefined)?.title ?? 'API reference'));
  return Buffer.from(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="modulepreload" href="${liveDocsPaths.redoc}">
<link rel="preload" href="${liveDocsPaths.definition}" as="fetch" crossorigin="anonymous">
<style>body { padding: 0; margin: 0; }</style>
<script type="module" src="${liveDocsPaths.script}"></script>
</head>
<body>
<div id="redoc"></div>
<noscript>These docs are rendered by JavaScript; generated/docs/index.html is the same contract as a page of its own.</noscript>
</body>
</html>
`);
}

/**
 * The page's script: renders the contract's document, and renders it again when the events name another version.
 * The page keeps its height while Redoc renders anew, so that its reader stays where they were.
 */
const pageScript = Buffer.from(`// The live reference docs of the mock (--docs live): see mock/served-documents/live-docs.ts.
import { init } from '${liveDocsPaths.redoc}';

const element = document.getElementById('redoc');
let shown;
let root;
let queue = Promise.resolve();

async function render() {
  const answer = await fetch('${liveDocsPaths.definition}');
  if (!answer.ok) throw new Error('${liveDocsPaths.definition} answered ' + answer.status);
  const version = answer.headers.get('etag');
  if (version !== null && version === shown) return;
  const definition = await answer.json();
  element.style.minHeight = element.offsetHeight + 'px';
  root?.unmount();
  root = init(definition, { disableTelemetry: true }, element);
  shown = version;
  document.documentElement.dataset.docsVersion = version ?? '';
  // Its height back to its own once Redoc has laid the new version out.
  setTimeout(() => (element.style.minHeight = ''), 3000);
}

function update() {
  // A mock that is not there (npm run dev starting it again) is no error of the page: the events say when it is back.
  queue = queue.then(render).catch((error) => console.warn('the docs could not be rendered:', error));
}

update();
const events = new EventSource('${liveDocsPaths.events}');
events.addEventListener('contract', (event) => {
  if (event.data !== shown) update();
});
// The stream ends when the mock reloads its contract: the new version is fetched at once, before the events
// connect again.
events.addEventListener('error', update);
`);

/** How soon the page connects again when a reload of the contract ended its stream. */
const reconnectMs = 250;

export interface LiveDocsOptions {
  /** The document as this mock serves it: its samples calling the mock (served-documents.ts). */
  asServed(content: Buffer, origin: string): Buffer;
  /** The page as this mock serves it: with the link to its console. */
  page(html: Buffer): Buffer;
}

export function liveDocs(contract: ContractDocument, options: LiveDocsOptions): Record<string, ServedDocument> {
  // Made again when the changelog changes (a release): the Changes page is made from it.
  const made = freshFile(changelogPath, (changelog) => Buffer.from(JSON.stringify(withChangesPage(withCodeSamples(contract), changelog.toString('utf8')))));
  const definition = async (origin: string) => options.asServed((await made()) as Buffer, origin);
  let page: Buffer | undefined;
  const pageDocument = { contentType: 'text/html; charset=utf-8', headers: { 'content-security-policy': policy, 'x-content-type-options': 'nosniff' }, read: async () => (page ??= options.page(pageOf(contract))) };
  const events = async (origin: string): Promise<AnswerStream> => {
    const version = etagOf(await definition(origin));
    return {
      // The server's streams send the heartbeat that keeps it open (http/event-streams.ts).
      start(write) {
        void write(`retry: ${reconnectMs}\n\nevent: contract\ndata: ${version}\n\n`);
      },
    };
  };
  const script = { 'x-content-type-options': 'nosniff' };
  return {
    '/': pageDocument,
    [liveDocsPaths.page]: pageDocument,
    [liveDocsPaths.script]: { contentType: 'text/javascript; charset=utf-8', headers: script, read: async () => pageScript },
    [liveDocsPaths.redoc]: { contentType: 'text/javascript; charset=utf-8', headers: script, read: readRedocScript },
    [liveDocsPaths.definition]: { contentType: 'application/json', read: definition },
    [liveDocsPaths.events]: { contentType: 'text/event-stream', stream: events },
  };
}
