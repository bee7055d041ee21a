/**
 * The reference docs' pages are built once for the same inputs (scripts/reference-docs.ts): a page kept in the
 * project's node_modules/.cache/reference-docs/ is what the next build of the same document and title writes, any
 * other document or title is built anew, and `cache: false` never reads the cache.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractDocument } from '../../contract-model/document.ts';
import { buildReferenceDocs } from '../../scripts/reference-docs.ts';

const root = new URL('../../', import.meta.url).pathname;

const documentOf = (summary: string): ContractDocument => ({
  openapi: '3.1.0',
  info: { title: 'Pages', version: '1.0.0' },
  paths: { '/things': { get: { operationId: 'listThings', summary, responses: { '200': { description: 'The things.' } } } } },
  components: {},
}) as ContractDocument;

describe('the reference docs of a document', () => {
  let project: string;
  let cacheFolder: string;
  const build = async (document: ContractDocument, title: string, options: { cache?: boolean } = {}) => {
    const out = join(project, 'out', `${Math.random()}.html`);
    await buildReferenceDocs(document, out, { projectRoot: project, title, ...options });
    return readFile(out, 'utf8');
  };
  const keptPages = async () => (await readdir(cacheFolder).catch(() => [])).filter((name) => name.endsWith('.html'));

  beforeAll(async () => {
    // A project of its own (its cache), with the template, redocly.yaml and Redocly's CLI of this repository.
    project = await mkdtemp(join(tmpdir(), 'reference-docs-'));
    await mkdir(join(project, 'scripts'));
    await cp(join(root, 'scripts/docs-template.hbs'), join(project, 'scripts/docs-template.hbs'));
    await cp(join(root, 'redocly.yaml'), join(project, 'redocly.yaml'));
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    await mkdir(join(project, 'node_modules', '@redocly'));
    await symlink(join(root, 'node_modules', '@redocly', 'cli'), join(project, 'node_modules', '@redocly', 'cli'));
    await symlink(join(root, 'node_modules', '.bin', 'redocly'), join(project, 'node_modules', '.bin', 'redocly'));
    cacheFolder = join(project, 'node_modules', '.cache', 'reference-docs');
  });

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('is built once, and the kept page is what the next build of the same document and title writes', async () => {
    const first = await build(documentOf('List the things'), 'Pages');
    expect(first).toContain('List the things');
    const [page] = await keptPages();
    expect(page).toBeDefined();
    // Marked, so that a page taken from the cache is told from one built again.
    await writeFile(join(cacheFolder, page!), (await readFile(join(cacheFolder, page!), 'utf8')).replace('List the things', 'Taken from the cache'));
    expect(await build(documentOf('List the things'), 'Pages')).toContain('Taken from the cache');
    expect(await build(documentOf('List the things'), 'Pages', { cache: false })).toContain('List the things');
  });

  it('is built anew for another document or another title, each kept beside the others', async () => {
    const before = (await keptPages()).length;
    expect(await build(documentOf('List every thing'), 'Pages')).toContain('List every thing');
    const retitled = await build(documentOf('List the things'), 'Other pages');
    expect(retitled).toContain('<title>Other pages</title>');
    expect(retitled).not.toContain('Taken from the cache');
    expect(await keptPages()).toHaveLength(before + 2);
  });
});
