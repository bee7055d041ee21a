/**
 * The linters' findings are kept by everything they follow from (contract-changes/review/lint-cache.ts): the same
 * files give what was kept, any file of the contract or of the linters' configuration a new key, a contract that
 * reads outside its folder is never kept, and a damaged entry is linted again.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintCacheEntry } from '../../contract-changes/review/lint-cache.ts';
import { lintContract, type LintFinding } from '../../contract-changes/review/lint-findings.ts';

const root = new URL('../../', import.meta.url).pathname;

/** A project of its own files: a contract, the linters' configuration, a node_modules of its own (its cache). */
async function smallProject(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'lint-cache-'));
  await mkdir(join(folder, 'openapi', 'paths'), { recursive: true });
  await mkdir(join(folder, 'node_modules'));
  await writeFile(join(folder, 'openapi', 'openapi.yaml'), "openapi: 3.1.0\npaths:\n  /a:\n    $ref: './paths/a.yaml'\n");
  await writeFile(join(folder, 'openapi', 'paths', 'a.yaml'), 'get:\n  responses: {}\n');
  await writeFile(join(folder, '.spectral.yaml'), 'extends: [spectral:oas]\n');
  await writeFile(join(folder, 'redocly.yaml'), 'extends: [recommended]\n');
  await mkdir(join(folder, 'spectral', 'functions'), { recursive: true });
  await writeFile(join(folder, 'spectral', 'functions', 'first.js'), 'export default () => [];\n');
  return folder;
}

describe('the key', () => {
  let project: string;
  const entryOf = (rootFile = join(project, 'openapi', 'openapi.yaml')) => lintCacheEntry<string[]>(rootFile, project);
  const kept = async (findings: string[]) => {
    const entry = await entryOf();
    await entry!.write(findings);
  };

  beforeAll(async () => {
    project = await smallProject();
  });
  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('gives back what was kept for the same files, in node_modules/.cache/contract-review/', async () => {
    await kept(['kept']);
    expect(await (await entryOf())!.read()).toEqual(['kept']);
    expect((await readdir(join(project, 'node_modules', '.cache', 'contract-review'))).filter((name) => name.endsWith('.json'))).toHaveLength(1);
  });

  it('is another for any byte of the contract, a file added to it, or the linters\' configuration', async () => {
    await kept(['before']);
    const edits: [string, string][] = [
      ['openapi/paths/a.yaml', 'get:\n  responses: {}\n\n'],
      ['openapi/paths/b.yaml', 'x: 1\n'],
      ['.spectral.yaml', 'extends: [spectral:oas]\nrules: {}\n'],
      ['redocly.yaml', 'extends: [recommended-strict]\n'],
      ['spectral/functions/rule.js', 'export default () => [];\n'],
    ];
    for (const [file, text] of edits) {
      const path = join(project, file);
      const was = await readFile(path, 'utf8').catch(() => undefined);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, text);
      expect(await (await entryOf())!.read(), file).toBeUndefined();
      if (was === undefined) await rm(path);
      else await writeFile(path, was);
      expect(await (await entryOf())!.read(), `${file} as it was`).toEqual(['before']);
    }
  });

  it('is none for a contract whose $ref leaves its folder or names a URL, and none without node_modules', async () => {
    for (const target of ['../outside.yaml', 'https://example.com/a.yaml', './paths/../../outside.yaml']) {
      await writeFile(join(project, 'openapi', 'openapi.yaml'), `openapi: 3.1.0\npaths:\n  /a:\n    $ref: '${target}'\n`);
      expect(await entryOf(), target).toBeUndefined();
    }
    await writeFile(join(project, 'openapi', 'openapi.yaml'), "openapi: 3.1.0\npaths:\n  /a:\n    $ref: './paths/a.yaml'\n");
    const bare = await mkdtemp(join(tmpdir(), 'lint-cache-bare-'));
    await cp(join(project, 'openapi'), join(bare, 'openapi'), { recursive: true });
    expect(await lintCacheEntry(join(bare, 'openapi', 'openapi.yaml'), bare)).toBeUndefined();
    await rm(bare, { recursive: true, force: true });
  });

  it('keeps no findings that name the folder they were found in', async () => {
    await writeFile(join(project, 'openapi', 'paths', 'a.yaml'), 'get:\n  responses: { }\n');
    await (await entryOf())!.write([`cannot resolve ${join(project, 'openapi', 'paths', 'gone.yaml')}`]);
    expect(await (await entryOf())!.read()).toBeUndefined();
  });
});

describe('lintContract with the cache', () => {
  let project: string;
  let rootFile: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'lint-cache-real-'));
    for (const path of ['openapi', 'spectral', '.spectral.yaml', 'redocly.yaml']) await cp(join(root, path), join(project, path), { recursive: true });
    // The linters of this repository, and a node_modules of the copy's own for its cache.
    await mkdir(join(project, 'node_modules', '.bin'), { recursive: true });
    for (const name of await readdir(join(root, 'node_modules'))) {
      if (name !== '.bin' && name !== '.cache') await symlink(join(root, 'node_modules', name), join(project, 'node_modules', name));
    }
    for (const bin of ['spectral', 'redocly']) await symlink(join(root, 'node_modules', '.bin', bin), join(project, 'node_modules', '.bin', bin));
    // A finding, so that what is kept is not only an empty list.
    const path = join(project, 'openapi', 'paths', 'v1_partner_customers.yaml');
    await writeFile(path, (await readFile(path, 'utf8')).replace('  summary: List customers\n', ''));
    rootFile = join(project, 'openapi', 'openapi.yaml');
  }, 60_000);

  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('lints once, and takes the kept findings after; a damaged entry is linted again; cache: false never reads it', async () => {
    const linted = await lintContract(rootFile, project);
    expect(linted.map((finding) => `${finding.tool} ${finding.rule} ${finding.file}`)).toEqual(expect.arrayContaining([
      'spectral operation-documented openapi/paths/v1_partner_customers.yaml', 'redocly operation-summary openapi/paths/v1_partner_customers.yaml',
    ]));
    const folder = join(project, 'node_modules', '.cache', 'contract-review');
    const [name] = await readdir(folder);
    const file = join(folder, name!);
    // What is read next is what the entry holds: marked, it comes back marked.
    const marked: LintFinding[] = linted.map((finding) => ({ ...finding, message: `${finding.message} (kept)` }));
    await writeFile(file, JSON.stringify({ findings: marked }));
    expect(await lintContract(rootFile, project)).toEqual(marked);
    expect(await lintContract(rootFile, project, { cache: false })).toEqual(linted);

    await writeFile(file, '{"findings": [');
    expect(await lintContract(rootFile, project)).toEqual(linted);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ findings: linted });
  }, 120_000);
});
