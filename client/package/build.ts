/**
 * `npm run build:client`: the client as an npm package in .build/client-package/ (ESM JavaScript and .d.ts from
 * the same sources, an exports map, only its two runtime dependencies), packed into .build/ with `npm pack`.
 * Prints the tarball's path.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, '.build', 'client-package');

export async function buildClientPackage(): Promise<string> {
  await rm(out, { recursive: true, force: true });
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(root, 'client', 'package', 'tsconfig.build.json')], { stdio: 'inherit' });
  // The types the contract generates are declarations already: tsc copies none of them, so they are copied here.
  await mkdir(join(out, 'dist', 'generated'), { recursive: true });
  await copyFile(join(root, 'generated', 'openapi.d.ts'), join(out, 'dist', 'generated', 'openapi.d.ts'));
  const kit = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const contract = JSON.parse(await readFile(join(root, 'generated', 'openapi.json'), 'utf8')) as { info: { version: string } };
  const manifest = {
    name: '@partner-formation/client',
    version: contract.info.version,
    description: 'Typed client and webhook verifier for the Partner Formation API, generated from its OpenAPI contract.',
    license: 'UNLICENSED',
    type: 'module',
    exports: { '.': { types: './dist/client/index.d.ts', default: './dist/client/index.js' } },
    types: './dist/client/index.d.ts',
    files: ['dist', 'README.md'],
    sideEffects: false,
    engines: { node: '>=20' },
    dependencies: { 'openapi-fetch': kit.dependencies['openapi-fetch'], standardwebhooks: kit.dependencies.standardwebhooks },
  };
  await writeFile(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(join(root, 'client', 'package', 'README.md'), join(out, 'README.md'));
  const packed = execFileSync('npm', ['pack', out, '--pack-destination', join(root, '.build'), '--silent'], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1);
  return join(root, '.build', packed ?? '');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await buildClientPackage());
