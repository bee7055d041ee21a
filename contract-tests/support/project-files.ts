/** Files of the project a runner depends on: the tools it starts, and the generated documents it reads. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './usage-error.ts';

/** The project's root folder: the contract tests run from source, two folders below it. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

export const projectPath = (...segments: string[]): string => join(projectRoot, ...segments);

/** A package's bin script, run with `node` directly: npx would add a second or two and npm's warnings. */
export function binOf(packageName: string, bin: string): string {
  return join(projectRoot, 'node_modules', packageName, bin);
}

/** Fails early, naming the command that writes the files, rather than letting a tool report a missing path. */
export function requireGenerated(files: readonly string[]): void {
  const missing = files.filter((file) => !existsSync(join(projectRoot, file)));
  if (missing.length > 0) {
    throw new UsageError(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing: run \`npm run generate\` first.`);
  }
}
