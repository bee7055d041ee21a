/**
 * The reference docs of a bundled contract as one standalone page: Redoc, inlined so that it renders offline, with
 * the kit's template (nothing outside the page may load) and Redoc's badge drawn in place. `npm run generate` writes
 * the contract's and the mock's admin contract's into generated/; `npm run review -- --out DIR` writes the
 * proposed contract's beside its review, built the same way, so that what a reviewer reads is what ships.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ContractDocument } from '../contract-model/document.ts';
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
}

/** Writes `outFile`: the docs of `document`, which is left unchanged. */
export async function buildReferenceDocs(document: ContractDocument, outFile: string, { projectRoot, title, changelog }: ReferenceDocsOptions): Promise<void> {
  const shown = changelog === undefined ? document : withChangesPage(withCodeSamples(document), changelog);
  const scratch = await mkdtemp(join(tmpdir(), 'docs-'));
  try {
    const source = join(scratch, 'openapi.json');
    await writeFile(source, JSON.stringify(shown));
    await mkdir(dirname(outFile), { recursive: true });
    // --inlineBundle embeds Redoc itself, so the page renders offline.
    // The template is Redocly's own plus a Content-Security-Policy: nothing outside the page may load.
    const template = join(projectRoot, 'scripts/docs-template.hbs');
    await promisify(execFile)(join(projectRoot, 'node_modules/.bin/redocly'), ['build-docs', source, '--inlineBundle', '--template', template, '--title', title, '-o', outFile], {
      cwd: projectRoot,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    await writeFile(outFile, withLocalBadge(await readFile(outFile, 'utf8')));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
