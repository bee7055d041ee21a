/**
 * docs/architecture.md against the code: the folders it describes are the folders of mock/, no function is longer
 * than its limits (in the mock and in the console), and the folders import each other without a cycle (the import rules themselves are
 * .dependency-cruiser.cjs, run by `npm run check:architecture`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cruise } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { functionLengths } from './function-lengths.ts';

const root = join(import.meta.dirname, '..', '..');
const note = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const folders = readdirSync(join(root, 'mock')).filter((entry) => statSync(join(root, 'mock', entry)).isDirectory());

/** The folders named in the note's table of folders (its first column, `name/`). */
function describedFolders(): string[] {
  const section = note.slice(note.indexOf('## The folders'), note.indexOf('## A request'));
  return [...section.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1] as string);
}

describe('docs/architecture.md', () => {
  it('describes every folder of mock/, and no folder that is not there', () => {
    expect(describedFolders().sort()).toEqual([...folders].sort());
  });

  it('names only files that exist', () => {
    const named = [...note.matchAll(/`((?:[a-z-]+\/)+[a-z-]+\.ts)`/g)].map((match) => match[1] as string);
    expect(named.length).toBeGreaterThan(10);
    // A path is the project's when it starts with one of its top folders, the mock's otherwise.
    const pathOf = (file: string) => (/^(tests|contract-tests|contract-model|generated|docs|scripts|bench|console)\//.test(file) ? join(root, file) : join(root, 'mock', file));
    const missing = named.filter((file) => {
      try {
        return !statSync(pathOf(file)).isFile();
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });
});

describe('the code of the mock', () => {
  const lengths = functionLengths(join(root, 'mock'), root);

  it('has no function over 100 lines', () => {
    expect(lengths.filter((found) => found.lines > 100).map((found) => `${found.file}:${found.line} ${found.name} (${found.lines} lines)`)).toEqual([]);
  });

  it('has no function over 80 lines in the store and its backends', () => {
    const store = lengths.filter((found) => found.file.startsWith('mock/store/') && found.lines > 80);
    expect(store.map((found) => `${found.file}:${found.line} ${found.name} (${found.lines} lines)`)).toEqual([]);
  });

  it('has folders that import each other without a cycle', async () => {
    const result = await cruise(['mock'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' }, exclude: { path: '^(node_modules|generated)/' } });
    const modules = typeof result.output === 'string' ? [] : result.output.modules;
    const folderOf = (path: string) => (path.startsWith('mock/') ? path.split('/')[1] : undefined);
    const edges = new Map<string, Set<string>>();
    for (const module of modules) {
      const from = folderOf(module.source);
      for (const dependency of module.dependencies) {
        const to = folderOf(dependency.resolved);
        if (from && to && from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    expect(edges.size).toBeGreaterThan(10);
    expect(cyclesOf(edges)).toEqual([]);
  });
});

describe("the console's code", () => {
  it('has no function over 60 lines: a view is made of components, each one part of it', () => {
    const long = functionLengths(join(root, 'console'), root).filter((found) => found.lines > 60);
    expect(long.map((found) => `${found.file}:${found.line} ${found.name} (${found.lines} lines)`)).toEqual([]);
  });

  it('keeps each view in a folder of its own, with no file of a view at the top of views/', () => {
    const views = join(root, 'console', 'views');
    const loose = readdirSync(views).filter((entry) => !statSync(join(views, entry)).isDirectory());
    expect(loose).toEqual([]);
  });
});

/** The cycles of a graph, each as the path that closes it. */
function cyclesOf(edges: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (node: string, path: string[]) => {
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node, [node]);
  return cycles;
}
