/**
 * What the two packages the kit ships (`npm run build:client`, `npm run build:mock`) have in common: a manifest
 * versioned like the contract they are made from, and `npm pack` into .build/.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface KitManifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  /**
   * The Node the kit runs on (`devEngines.runtime.version`, npm's field for a project's own runtime): what its
   * packages that run on Node require, and the floor `.ci/on-node.cjs` holds a script's Node to. `onFail: ignore`,
   * since on an older Node every script still runs, on the pinned one (so `npm ci` there warns of nothing).
   */
  devEngines: { runtime: { name: 'node'; version: string } };
}

export async function readKit(): Promise<{ kit: KitManifest; contractVersion: string }> {
  const kit = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as KitManifest;
  const contract = JSON.parse(await readFile(join(projectRoot, 'generated', 'openapi.json'), 'utf8')) as { info: { version: string } };
  return { kit, contractVersion: contract.info.version };
}

/** Writes `manifest` into `folder` and packs it into .build/; returns the tarball's path. */
export async function packFolder(folder: string, manifest: Record<string, unknown>): Promise<string> {
  await writeFile(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const output = execFileSync('npm', ['pack', folder, '--pack-destination', join(projectRoot, '.build'), '--silent'], { cwd: projectRoot, encoding: 'utf8' });
  return join(projectRoot, '.build', output.trim().split('\n').at(-1) ?? '');
}
