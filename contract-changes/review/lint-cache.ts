/**
 * The linters' findings of a contract kept by what decides them, so that a contract linted once is not linted again:
 * the review lints the proposed contract and, when it has findings, the base, and both are mostly what the last
 * review saw (a designer reviewing again after a save; CI's two templates reviewing one commit). Spectral and Redocly
 * take about 6 s of CPU for this contract, most of a review's cost.
 *
 * The key is a hash of everything the findings follow from: each file of the contract's folder (by its path there and
 * its bytes), the linters' configuration (`.spectral.yaml`, its functions, `redocly.yaml`), the versions of the
 * linters installed, and this module and the one that reads the linters' reports. A contract with a `$ref` that
 * leaves its folder or names a URL is not kept (what it reads is not all in the key), nor are findings whose message
 * names the folder itself (an unresolved reference's absolute path, which another copy would not have).
 *
 * Kept in `node_modules/.cache/contract-review/` (where tools keep caches, gone with a fresh `npm ci`), each entry a
 * file written whole (renamed into place), at most `keptEntries` of them, the oldest removed first. A cache that
 * cannot be read or written is no cache: the linters run, and the review is the same.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

const keptEntries = 64;

/** What the configuration of the linters is read from, relative to the project. */
const configuration = ['.spectral.yaml', 'redocly.yaml', 'spectral'];
/** The packages whose versions decide what the linters find. */
const linters = ['@stoplight/spectral-cli', '@stoplight/spectral-core', '@stoplight/spectral-rulesets', '@stoplight/spectral-owasp-ruleset', '@redocly/cli', '@redocly/openapi-core'];
/** The modules that turn the linters' reports into findings: a change to them changes what is kept. */
const readers = [new URL('./lint-cache.ts', import.meta.url), new URL('./lint-findings.ts', import.meta.url)];

export interface LintCache<T> {
  /** The findings kept for this contract, or undefined. */
  read(): Promise<T | undefined>;
  /** Keeps the findings, unless `folder` (the contract's) appears in them. */
  write(findings: T): Promise<void>;
}

/**
 * The cache entry of the contract whose root file is `rootFile`, for the linters of `projectRoot`; undefined when
 * the contract cannot be kept (see above) or the project has no node_modules.
 */
export async function lintCacheEntry<T>(rootFile: string, projectRoot: string): Promise<LintCache<T> | undefined> {
  const folder = dirname(rootFile);
  const modules = join(projectRoot, 'node_modules');
  const key = await keyOf(rootFile, folder, projectRoot, modules).catch(() => undefined);
  if (key === undefined) return undefined;
  const cacheFolder = join(modules, '.cache', 'contract-review');
  const file = join(cacheFolder, `lint-${key}.json`);
  return {
    async read() {
      try {
        return (JSON.parse(await readFile(file, 'utf8')) as { findings: T }).findings;
      } catch {
        return undefined;
      }
    },
    async write(findings) {
      const text = JSON.stringify({ findings });
      if (text.includes(JSON.stringify(dirname(folder)).slice(1, -1))) return;
      try {
        await mkdir(cacheFolder, { recursive: true });
        const partial = `${file}.${process.pid}.${Date.now()}.partial`;
        await writeFile(partial, text);
        await rename(partial, file);
        await prune(cacheFolder);
      } catch {
        // A cache is an optimisation: a full disk or a read-only node_modules leaves the review as it is.
      }
    },
  };
}

async function keyOf(rootFile: string, folder: string, projectRoot: string, modules: string): Promise<string | undefined> {
  if (!(await stat(modules)).isDirectory()) return undefined;
  const hash = createHash('sha256');
  hash.update(`root\0${relative(folder, rootFile)}\0`);
  for (const file of await filesUnder(folder)) {
    const text = await readFile(join(folder, file));
    if (leavesFolder(text.toString('utf8'), dirname(join(folder, file)), folder)) return undefined;
    hash.update(`contract\0${file}\0${text.length}\0`).update(text);
  }
  for (const entry of configuration) {
    const path = join(projectRoot, entry);
    const files = (await stat(path).catch(() => undefined))?.isDirectory() ? (await filesUnder(path)).map((file) => join(entry, file)) : [entry];
    for (const file of files) {
      const text = await readFile(join(projectRoot, file)).catch(() => Buffer.from('(none)'));
      hash.update(`configuration\0${file}\0${text.length}\0`).update(text);
    }
  }
  for (const name of linters) {
    const manifest = await readFile(join(modules, name, 'package.json'), 'utf8').catch(() => '{}');
    hash.update(`linter\0${name}\0${String((JSON.parse(manifest) as { version?: unknown }).version)}\0`);
  }
  for (const reader of readers) hash.update('reader\0').update(await readFile(reader));
  return hash.digest('hex').slice(0, 32);
}

/** Every file under `folder`, by its path there, in one order. */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

/** Whether a file's `$ref`s name a URL or a file outside `folder`. */
function leavesFolder(text: string, fileFolder: string, folder: string): boolean {
  for (const [, , target = ''] of text.matchAll(/["']?\$ref["']?\s*:\s*(["']?)([^"'#\s,}]*)\1/g)) {
    if (target === '') continue;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return true;
    const path = resolve(fileFolder, decodeURIComponent(target));
    if (path !== folder && !path.startsWith(folder + sep)) return true;
  }
  return false;
}

/** Removes the oldest entries past `keptEntries`, and partial files a killed writer left. */
async function prune(cacheFolder: string): Promise<void> {
  const names = await readdir(cacheFolder);
  const entries = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(cacheFolder, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
  const stale = entries.filter(({ name, time }) => name.endsWith('.partial') && Date.now() - time > 60_000);
  const kept = entries.filter(({ name }) => name.endsWith('.json')).sort((a, b) => b.time - a.time);
  await Promise.all([...stale, ...kept.slice(keptEntries)].map(({ name }) => rm(join(cacheFolder, name), { force: true })));
}
