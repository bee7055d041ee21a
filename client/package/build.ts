/**
 * `npm run build:client`: the client as an npm package in .build/client-package/ (ESM JavaScript and .d.ts from
 * the same sources, an exports map, only its two runtime dependencies), packed into .build/ with `npm pack`.
 * Prints the tarball's path.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packFolder, projectRoot as root, readKit } from '../../scripts/package-folder.ts';

const out = join(root, '.build', 'client-package');

export async function buildClientPackage(): Promise<string> {
  await rm(out, { recursive: true, force: true });
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(root, 'client', 'package', 'tsconfig.build.json')], { stdio: 'inherit' });
  // The types the contract generates are declarations already: tsc copies none of them, so they are copied here.
  await mkdir(join(out, 'dist', 'generated'), { recursive: true });
  await copyFile(join(root, 'generated', 'openapi.d.ts'), join(out, 'dist', 'generated', 'openapi.d.ts'));
  const { kit, contractVersion } = await readKit();
  await copyFile(join(root, 'client', 'package', 'README.md'), join(out, 'README.md'));
  return packFolder(out, {
    name: '@partner-formation/client',
    version: contractVersion,
    description: 'Typed client and webhook verifier for the Partner Formation API, generated from its OpenAPI contract.',
    license: 'UNLICENSED',
    type: 'module',
    exports: { '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' } },
    types: './dist/client/index.d.ts',
    files: ['dist', 'README.md'],
    sideEffects: false,
    engines: { node: '>=20' },
    dependencies: { 'openapi-fetch': kit.dependencies['openapi-fetch'], standardwebhooks: kit.dependencies.standardwebhooks },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await buildClientPackage());
