/**
 * The reference docs of a bundled contract as one standalone page: Redoc, inlined so that it renders offline, with
 * the kit's template (nothing outside the page may load) and Redoc's badge drawn in place. `npm run generate` writes
 * the contract's and the mock's admin contract's into generated/; `npm run review -- --out DIR` writes the
 * proposed contract's beside its review, built the same way, so that what a reviewer reads is what ships.
 *
 * Redoc's page of a document is built once (about 1.3 s of CPU, most of `npm run generate`'s) and kept by what it
 * follows from (scripts/project-cache.ts, `node_modules/.cache/reference-docs/`): the document as Redoc gets it, the
 * title, the template, `redocly.yaml` (its theme), the version of Redocly's CLI and this module. `npm run generate`
 * and its `--check` build the same pages, as does a review run again on the same change.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ContractDocument } from '../contract-model/document.ts';
import { installedVersion, keyHash, projectCache } from './project-cache.ts';
import { withChangesPage } from './changes-page.ts';
import { withCodeSamples } from './code-samples.ts';
import { withLocalBadge } from './redoc-badge.ts';

export interface ReferenceDocsOptions {
  /** The folder with `node_modules/`, `redocly.yaml` and `scripts/docs-template.hbs`. */
  projectRoot: string;
  title: string;
  /**
   * The API's docs show request samples (curl and the client) made from the contract's examples, and a Changes page
   * made from this text of CHANGELOG.md. Without it, the contract as it is (the mock's admin API).
   */
  changelog?: string;
  /** Whether a page built before for the same inputs is taken (true unless given). */
  cache?: boolean;
}

/** Pages kept: each is 2 to 3 MB. */
const keptPages = 12;

/** Writes `outFile`: the docs of `document`, which is left unchanged. */
export async function buildReferenceDocs(document: ContractDocument, outFile: string, { projectRoot, title, changelog, cache = true }: ReferenceDocsOptions): Promise<void> {
  const shown = changelog === undefined ? document : withChangesPage(withCodeSamples(document), changelog);
  const source = JSON.stringify(shown);
  // The template is Redocly's own plus a Content-Security-Policy: nothing outside the page may load.
  const template = join(projectRoot, 'scripts/docs-template.hbs');
  const pages = cache ? await projectCache(projectRoot, 'reference-docs', { keptEntries: keptPages, suffix: '.html' }) : undefined;
  const key = pages && (await pageKey(projectRoot, source, title, template));
  await mkdir(dirname(outFile), { recursive: true });
  const kept = key === undefined ? undefined : await pages?.read(key);
  const page = kept?.toString('utf8') ?? (await buildPage(projectRoot, source, template, title));
  if (kept === undefined && key !== undefined) await pages?.write(key, page);
  await writeFile(outFile, withLocalBadge(page));
}

/** Redocly's `build-docs` of `source`, as it writes the page. */
async function buildPage(projectRoot: string, source: string, template: string, title: string): Promise<string> {
  const scratch = await mkdtemp(join(tmpdir(), 'docs-'));
  try {
    const sourceFile = join(scratch, 'openapi.json');
    const pageFile = join(scratch, 'index.html');
    await writeFile(sourceFile, source);
    // --inlineBundle embeds Redoc itself, so the page renders offline.
    await promisify(execFile)(join(projectRoot, 'node_modules/.bin/redocly'), ['build-docs', sourceFile, '--inlineBundle', '--template', template, '--title', title, '-o', pageFile], {
      cwd: projectRoot,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    return await readFile(pageFile, 'utf8');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function pageKey(projectRoot: string, source: string, title: string, template: string): Promise<string> {
  const hash = keyHash();
  hash.add('document', source);
  hash.add('title', title);
  hash.add('template', await readFile(template));
  hash.add('redocly.yaml', await readFile(join(projectRoot, 'redocly.yaml')).catch(() => '(none)'));
  hash.add('@redocly/cli', await installedVersion(projectRoot, '@redocly/cli'));
  hash.add('builder', await readFile(new URL(import.meta.url)));
  return hash.digest();
}
