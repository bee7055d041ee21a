/**
 * The TypeScript compilers a consumer of the kit's packages may have, by path. Both packages are named `tsc` in
 * their `bin`, so which one `node_modules/.bin/tsc` links to is npm's choice: a test names the one it means.
 * - TypeScript 7 (`typescript-native`, npm's `latest`): what `npm install typescript` gives a new project today, and
 *   what `npm run typecheck` runs (a native compiler, 4 s where 5.9 takes 20 s on this repository).
 * - TypeScript 5.9 (`typescript`): what openapi-typescript and the tools that load TypeScript as a library need,
 *   and what a project that has not moved yet compiles with.
 */
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

export const typescriptCompilers = [
  { name: 'TypeScript 7', tsc: join(root, 'node_modules', 'typescript-native', 'bin', 'tsc') },
  { name: 'TypeScript 5.9', tsc: join(root, 'node_modules', 'typescript', 'bin', 'tsc') },
] as const;

/** What `npx tsc --init` writes in a new project today: TypeScript 7's defaults (strict, nodenext). */
export const newProjectTsc = typescriptCompilers[0].tsc;
