/**
 * `npm run build:mock`: the mock as an npm package with a `bin`, so that it runs without a clone of this repo:
 * `npx ./partner-formation-mock-VERSION.tgz --port 4010`. It carries the mock bundled by esbuild from the package's
 * own entry (main.ts: a Node check first, and a help that speaks of npx; its npm dependencies are installed with
 * it), the generated contract and docs it serves, the changelog, and a README of its own. And its Mock Service
 * Worker entry, `@partner-formation/mock/msw` (msw.ts: handlers over the mock in process, for a frontend's tests),
 * for Node and, under the `browser` condition, for browsers (browser-bundle.ts, its size printed and bounded), with
 * its TypeScript declarations (msw-api.ts); `msw` is the app's own, a peer dependency. Prints the tarball's path.
 */
import { execFileSync } from 'node:child_process';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packFolder, projectRoot as root, readKit } from '../../scripts/package-folder.ts';
import { build } from 'esbuild';
import { browserSizesLine, buildBrowserBundle } from './browser-bundle.ts';
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
  await buildMswEntries();
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
    exports: {
      './msw': { types: './dist/msw.d.ts', browser: './dist/browser/msw-browser.mjs', default: './dist/msw.mjs' },
      './package.json': './package.json',
    },
    files: ['bin', 'dist', 'generated', 'CHANGELOG.md', 'README.md'],
    engines: { node: kit.devEngines.runtime.version },
    dependencies: kit.dependencies,
    // The app's own msw runs the handlers (one copy of it for the app and the mock); the command needs none.
    peerDependencies: { msw: `^${kit.devDependencies.msw}` },
    peerDependenciesMeta: { msw: { optional: true } },
  });
}

/**
 * `@partner-formation/mock/msw`: for Node (and jsdom), bundled as the mock's main entry is (packages external, from
 * the package's dependencies), reading the contracts the package carries; for browsers, everything in it but msw;
 * and the declarations of its API, which name the admin contract's generated types.
 */
async function buildMswEntries(): Promise<void> {
  await build({
    entryPoints: { msw: join(root, 'mock', 'package', 'msw.ts') },
    outdir: join(out, 'dist'), outExtension: { '.js': '.mjs' },
    bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node22', packages: 'external', sourcemap: true, logLevel: 'warning',
  });
  console.log(browserSizesLine(await buildBrowserBundle(join(out, 'dist', 'browser'))));
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(root, 'mock', 'package', 'tsconfig.build.json')], { stdio: 'inherit' });
  await mkdir(join(out, 'dist', 'types', 'generated', 'mock-admin'), { recursive: true });
  await copyFile(join(root, 'generated', 'mock-admin', 'openapi.d.ts'), join(out, 'dist', 'types', 'generated', 'mock-admin', 'openapi.d.ts'));
  const api = './types/mock/package/msw-api.js';
  await writeFile(join(out, 'dist', 'msw.d.ts'), `export * from '${api}';\nimport type { CreateMock } from '${api}';\n/** The mock in process, for Mock Service Worker: its handlers, and the API that resets, seeds, arms and reads it. */\nexport declare const createMock: CreateMock;\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await buildMockPackage());
