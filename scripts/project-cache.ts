/**
 * Files kept by a key in the project's `node_modules/.cache/<name>/` (where tools keep caches, gone with a fresh
 * `npm ci`), for work whose result follows from its inputs alone: the key is a hash of all of them, which the caller
 * makes (keyHash helps). Each entry is a file written whole (written aside, then renamed into place), at most
 * `keptEntries` of them, the one used longest ago removed first. A cache that cannot be read or written is no cache:
 * the caller does the work, and what it makes is the same.
 */
import { createHash, type Hash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ProjectCache {
  /** What is kept under `key`, or undefined. */
  read(key: string): Promise<Buffer | undefined>;
  write(key: string, content: string | Buffer): Promise<void>;
}

/** The cache `name` of the project at `projectRoot`; undefined when the project has no node_modules. */
export async function projectCache(projectRoot: string, name: string, { keptEntries, suffix }: { keptEntries: number; suffix: string }): Promise<ProjectCache | undefined> {
  const modules = join(projectRoot, 'node_modules');
  if (!(await stat(modules).catch(() => undefined))?.isDirectory()) return undefined;
  const folder = join(modules, '.cache', name);
  const fileOf = (key: string) => join(folder, `${key}${suffix}`);
  return {
    async read(key) {
      try {
        const content = await readFile(fileOf(key));
        // Used now: the last to be removed.
        const now = new Date();
        await utimes(fileOf(key), now, now).catch(() => undefined);
        return content;
      } catch {
        return undefined;
      }
    },
    async write(key, content) {
      try {
        await mkdir(folder, { recursive: true });
        const partial = `${fileOf(key)}.${process.pid}.${Date.now()}.partial`;
        await writeFile(partial, content);
        await rename(partial, fileOf(key));
        await prune(folder, suffix, keptEntries);
      } catch {
        // A full disk or a read-only node_modules: nothing is kept, and nothing else changes.
      }
    },
  };
}

/** A hash for a key: each part goes in with its label and length, so that no two lists of parts hash alike. */
export function keyHash(): { add(label: string, content: string | Buffer): void; digest(): string } {
  const hash: Hash = createHash('sha256');
  return {
    add(label, content) {
      const bytes = typeof content === 'string' ? Buffer.from(content) : content;
      hash.update(`${label}\0${bytes.length}\0`).update(bytes);
    },
    digest: () => hash.digest('hex').slice(0, 32),
  };
}

/** The version an installed package's manifest states, or "(none)". */
export async function installedVersion(projectRoot: string, name: string): Promise<string> {
  const manifest = await readFile(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8').catch(() => '{}');
  return String((JSON.parse(manifest) as { version?: unknown }).version ?? '(none)');
}

/** Removes the entries used longest ago past `keptEntries`, and partial files a killed writer left. */
async function prune(folder: string, suffix: string, keptEntries: number): Promise<void> {
  const names = await readdir(folder);
  const entries = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
  const stale = entries.filter(({ name, time }) => name.endsWith('.partial') && Date.now() - time > 60_000);
  const kept = entries.filter(({ name }) => name.endsWith(suffix)).sort((a, b) => b.time - a.time);
  await Promise.all([...stale, ...kept.slice(keptEntries)].map(({ name }) => rm(join(folder, name), { force: true })));
}
