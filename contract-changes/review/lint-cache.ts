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
 * Kept in `node_modules/.cache/contract-review/` (scripts/project-cache.ts: each entry written whole, at most
 * `keptEntries` of them). A cache that cannot be read or written is no cache: the linters run, and the review is the
 * same.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { installedVersion, keyHash, projectCache } from '../../scripts/project-cache.ts';

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
  const cache = await projectCache(projectRoot, 'contract-review', { keptEntries, suffix: '.json' });
  const key = cache && (await keyOf(rootFile, folder, projectRoot).catch(() => undefined));
  if (cache === undefined || key === undefined) return undefined;
  const name = `lint-${key}`;
  return {
    async read() {
      try {
        const kept = await cache.read(name);
        return kept === undefined ? undefined : (JSON.parse(kept.toString('utf8')) as { findings: T }).findings;
      } catch {
        return undefined;
      }
    },
    async write(findings) {
      const text = JSON.stringify({ findings });
      if (text.includes(JSON.stringify(dirname(folder)).slice(1, -1))) return;
      await cache.write(name, text);
    },
  };
}

async function keyOf(rootFile: string, folder: string, projectRoot: string): Promise<string | undefined> {
  const hash = keyHash();
  hash.add('root', relative(folder, rootFile));
  for (const file of await filesUnder(folder)) {
    const text = await readFile(join(folder, file));
    if (leavesFolder(text.toString('utf8'), dirname(join(folder, file)), folder)) return undefined;
    hash.add(`contract ${file}`, text);
  }
  for (const entry of configuration) {
    const path = join(projectRoot, entry);
    const files = (await stat(path).catch(() => undefined))?.isDirectory() ? (await filesUnder(path)).map((file) => join(entry, file)) : [entry];
    for (const file of files) hash.add(`configuration ${file}`, await readFile(join(projectRoot, file)).catch(() => Buffer.from('(none)')));
  }
  for (const name of linters) hash.add(`linter ${name}`, await installedVersion(projectRoot, name));
  for (const reader of readers) hash.add('reader', await readFile(reader));
  return hash.digest();
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
