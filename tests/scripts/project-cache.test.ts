/**
 * The project's caches (scripts/project-cache.ts): what is written under a key is read back whole, at most
 * `keptEntries` are kept with the one used longest ago removed first, a writer's partial file left by a kill is
 * removed once old, and a cache that cannot be written is no error.
 */
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyHash, projectCache } from '../../scripts/project-cache.ts';

describe('a project cache', () => {
  let project: string;
  const folder = () => join(project, 'node_modules', '.cache', 'pages');
  const at = (name: string, minutesAgo: number) => utimes(join(folder(), name), new Date(Date.now() - minutesAgo * 60_000), new Date(Date.now() - minutesAgo * 60_000));

  beforeEach(async () => {
    project = await mkdtemp(join(tmpdir(), 'project-cache-'));
    await mkdir(join(project, 'node_modules'));
  });
  afterEach(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('reads back what was written under a key, and nothing under another', async () => {
    const cache = (await projectCache(project, 'pages', { keptEntries: 4, suffix: '.html' }))!;
    await cache.write('a', '<p>a</p>');
    expect((await cache.read('a'))?.toString()).toBe('<p>a</p>');
    expect(await cache.read('b')).toBeUndefined();
    expect(await readdir(folder())).toEqual(['a.html']);
  });

  it('keeps at most keptEntries, removing the one used longest ago, and old partial files', async () => {
    const cache = (await projectCache(project, 'pages', { keptEntries: 2, suffix: '.html' }))!;
    await cache.write('old', 'old');
    await cache.write('older', 'older');
    await at('old.html', 30);
    await at('older.html', 20);
    // Read now: used last, so kept.
    expect((await cache.read('old'))?.toString()).toBe('old');
    await writeFile(join(folder(), 'new.html.123.1.partial'), 'half');
    await at('new.html.123.1.partial', 5);
    await writeFile(join(folder(), 'fresh.html.124.1.partial'), 'being written');
    await cache.write('new', 'new');
    expect((await readdir(folder())).sort()).toEqual(['fresh.html.124.1.partial', 'new.html', 'old.html']);
  });

  it('is none without node_modules, and where it cannot write, it keeps nothing and throws nothing', async () => {
    expect(await projectCache(join(project, 'nowhere'), 'pages', { keptEntries: 2, suffix: '.html' })).toBeUndefined();
    const cache = (await projectCache(project, 'pages', { keptEntries: 2, suffix: '.html' }))!;
    // Its folder taken by a file (root may write anywhere, so no permission stops it here).
    await mkdir(join(project, 'node_modules', '.cache'));
    await writeFile(folder(), 'not a folder');
    await expect(cache.write('a', 'a')).resolves.toBeUndefined();
    expect(await cache.read('a')).toBeUndefined();
  });

  it('hashes parts with their labels and lengths, so that parts moved between labels make another key', () => {
    const of = (...parts: [string, string][]) => {
      const hash = keyHash();
      for (const [label, content] of parts) hash.add(label, content);
      return hash.digest();
    };
    expect(of(['a', 'bc'])).toBe(of(['a', 'bc']));
    expect(of(['a', 'bc'])).not.toBe(of(['a', 'b'], ['', 'c']));
    expect(of(['ab', 'c'])).not.toBe(of(['a', 'bc']));
    expect(of(['a', 'bc'])).toMatch(/^[0-9a-f]{32}$/);
  });
});
