/** The project's root folder, found from this file both when run from source and from the start-up bundle. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const projectRoot = findProjectRoot(fileURLToPath(import.meta.url));

export const projectPath = (...segments: string[]): string => join(projectRoot, ...segments);
