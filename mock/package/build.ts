/**
 * `npm run build:mock`: the mock as an npm package with a `bin`, so that it runs without a clone of this repo:
 * `npx ./partner-formation-mock-VERSION.tgz --port 4010`. It carries the mock bundled by esbuild from the package's
 * own entry (main.ts: a Node check first, and a help that speaks of npx; its npm dependencies are installed with
 * it), the generated contract and docs it serves, the changelog, and a README of its own. Prints the tarball's path.
 */
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packFolder, projectRoot as root, readKit } from '../../scripts/package-folder.ts';
import { readRange } from './supported-node.ts';

const out = join(root, '.build', 'mock-package');
const served = ['generated/openapi.json', 'generated/docs/index.html', 'generated/mock-admin/openapi.json', 'generated/mock-admin/docs/index.html', 'CHANGELOG.md'];

export async function buildMockPackage(): Promise<string> {
  const { kit, contractVersion } = await readKit();
  // Thrown here, at build time, if the package's Node check could not read the range it is shipped with.
  readRange(kit.devEngines.runtime.version);
  await rm(out, { recursive: true, force: true });
  // The same bundle as `npm start` runs (scripts/build-mock.mjs), from the package's entry, written into the package.
  execFileSync(process.execPath, [join(root, 'scripts', 'build-mock.mjs'), '--outdir', join(out, 'dist'), '--entry', join('mock', 'package', 'main.ts')], { cwd: root, stdio: 'inherit' });
  for (const file of served) {
    await mkdir(dirname(join(out, file)), { recursive: true });
    await copyFile(join(root, file), join(out, file));
  }
  await mkdir(join(out, 'bin'), { recursive: true });
  const bin = join(out, 'bin', 'partner-formation-mock.mjs');
  await writeFile(bin, "#!/usr/bin/env node\n// The mock of the Partner Formation API: `partner-formation-mock --help` lists its options.\nimport '../dist/main.mjs';\n");
  await chmod(bin, 0o755);
  // Its commands name this version's tarball, so that they can be copied as they are.
  const readme = await readFile(join(root, 'mock', 'package', 'README.md'), 'utf8');
  await writeFile(join(out, 'README.md'), readme.replaceAll('-VERSION.tgz', `-${contractVersion}.tgz`));
  return packFolder(out, {
    name: '@partner-formation/mock',
    version: contractVersion,
    description: 'A stateful mock of the Partner Formation API, checked against its OpenAPI contract, with its reference docs.',
    license: 'UNLICENSED',
    type: 'module',
    bin: { 'partner-formation-mock': './bin/partner-formation-mock.mjs' },
    files: ['bin', 'dist', 'generated', 'CHANGELOG.md', 'README.md'],
    engines: { node: kit.devEngines.runtime.version },
    dependencies: kit.dependencies,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await buildMockPackage());
