// The mock's bundle: its TypeScript as ES modules (.build/main.mjs and its lazily loaded chunks), so that it runs on
// plain Node (a TypeScript loader would add about a second to every start), packages left external, loaded from
// node_modules; and the console (console/, served at /_mock/console) bundled beside it for browsers, into
// console/console.js and console.css, with everything it imports: the page loads nothing from elsewhere. The console's
// sizes are written to console/bundle-size.json.
//
// Every file is written whole or not at all (to a file of its own, then renamed over the old one), the entry last: the
// stages of `npm test` build while others run what was built, and a mock started meanwhile must read a whole bundle.
// What a build read is noted (.build/inputs.json: each file's size and time), so that `npm start` builds only when
// something changed (`isFresh`).
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Besides what the bundles import: what decides how they are built. */
const settings = ['scripts/mock-bundle.mjs', 'tsconfig.json', 'console/tsconfig.json', 'package-lock.json'];

/**
 * Builds the bundle into `outdir` (`entry`: another entry as main.mjs, the mock's package's), noting what it read
 * unless `note` is false (a package's files are its own); the console's sizes.
 */
export async function buildMockBundle({ outdir = '.build', entry = 'mock/main.ts', note = true } = {}) {
  const consoleDir = join(outdir, 'console');
  const [mockBuilt, pageBuilt] = await Promise.all([
    build({
      entryPoints: { main: entry },
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      // Separate chunks keep what the mock imports lazily (the PDF renderer) out of start-up.
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      packages: 'external',
      sourcemap: true,
      metafile: true,
      logLevel: 'warning',
      write: false,
    }),
    build({
      entryPoints: { console: 'console/main.tsx' },
      outdir: consoleDir,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      // Browsers of the last two years; no polyfills.
      target: ['chrome120', 'firefox121', 'safari17'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      minify: true,
      sourcemap: 'linked',
      metafile: true,
      legalComments: 'linked',
      logLevel: 'warning',
      write: false,
    }),
  ]);
  writeWhole(pageBuilt.outputFiles);
  writeWhole(mockBuilt.outputFiles);
  const sizes = consoleSizes(pageBuilt, consoleDir);
  writeFileSync(join(consoleDir, 'bundle-size.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  if (note) {
    const inputs = [...Object.keys(mockBuilt.metafile.inputs), ...Object.keys(pageBuilt.metafile.inputs), ...settings];
    writeFileSync(join(outdir, 'inputs.json'), `${JSON.stringify({ entry, files: Object.fromEntries(inputs.map((file) => [file, stamp(file)])) })}\n`);
  }
  return { sizes };
}

/** Whether the bundle in `outdir` was built from `entry` and every file it read is as it was then. */
export function isFresh({ outdir = '.build', entry = 'mock/main.ts' } = {}) {
  try {
    const noted = JSON.parse(readFileSync(join(outdir, 'inputs.json'), 'utf8'));
    if (noted.entry !== entry || !statSync(join(outdir, 'main.mjs')).isFile()) return false;
    return Object.entries(noted.files).every(([file, was]) => stamp(file) === was);
  } catch {
    return false;
  }
}

/** The console's files by name, with their sizes, plain and gzipped. */
function consoleSizes(pageBuilt, consoleDir) {
  const contentOf = new Map(pageBuilt.outputFiles.map((file) => [resolve(file.path), file.contents]));
  return Object.fromEntries(
    Object.entries(pageBuilt.metafile.outputs)
      .filter(([file]) => /\.(js|css)$/.test(file))
      .map(([file, output]) => [relative(resolve(consoleDir), resolve(file)), { bytes: output.bytes, gzipBytes: gzipSync(contentOf.get(resolve(file)) ?? new Uint8Array(), { level: 9 }).byteLength }]),
  );
}

/** One line of the console's sizes. */
export function sizesLine(sizes) {
  return `console: ${Object.entries(sizes).map(([file, size]) => `${file} ${(size.bytes / 1024).toFixed(1)} KiB (${(size.gzipBytes / 1024).toFixed(1)} KiB gzipped)`).join(', ')}`;
}

/** Writes the files, each to a name of its own and renamed into place; entries (main.mjs) after the chunks they import. */
function writeWhole(files) {
  const entryFirst = (file) => (/[\\/]main\.mjs(\.map)?$/.test(file.path) ? 1 : 0);
  for (const file of [...files].sort((a, b) => entryFirst(a) - entryFirst(b))) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

/** A file's size and modification time, or `missing`. */
function stamp(file) {
  try {
    const { size, mtimeMs } = statSync(file);
    return `${size}:${mtimeMs}`;
  } catch {
    return 'missing';
  }
}
