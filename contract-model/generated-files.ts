/**
 * Where `npm run generate` writes (the bundle, the docs), found from this file's place under the project root,
 * which holds both when run from source and from the mock's start-up bundle in `.build/`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const projectRoot = findProjectRoot(fileURLToPath(import.meta.url));

export const generatedPath = (...segments: string[]): string => join(projectRoot, 'generated', ...segments);

/** The contract's changelog, which the reference docs link to (`../../CHANGELOG.md` from generated/docs/). */
export const changelogPath = join(projectRoot, 'CHANGELOG.md');
