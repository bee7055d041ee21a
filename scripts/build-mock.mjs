// Bundles the mock's TypeScript into ES modules (.build/main.mjs and its lazily loaded chunks) so that `npm start` runs it with plain Node:
// a TypeScript loader would add about a second to every start. Packages stay external, loaded from node_modules.
// The console (console/, served at /_mock/console) is bundled beside it for browsers, into console/console.js and console.css,
// with everything it imports: the page loads nothing from elsewhere. Its sizes are printed, and written to console/bundle-size.json.
// `--outdir DIR` writes elsewhere, and `--entry FILE` bundles another entry as main.mjs (the mock's package, mock/package/build.ts).
// Every file is written whole or not at all (to a file of its own, then renamed over the old one), the entry last: the
// stages of `npm test` build while others run what was built, and a mock started meanwhile must read a whole bundle.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const { values } = parseArgs({ options: { outdir: { type: 'string' }, entry: { type: 'string' }, quiet: { type: 'boolean' } } });
const outdir = values.outdir ?? '.build';

const mock = build({
  entryPoints: { main: values.entry ?? 'mock/main.ts' },
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
  logLevel: 'warning',
  write: false,
});

const consoleDir = join(outdir, 'console');
const page = build({
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
});

const [mockBuilt, built] = await Promise.all([mock, page]);
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
writeWhole(built.outputFiles);
writeWhole(mockBuilt.outputFiles);
const contentOf = new Map(built.outputFiles.map((file) => [relative(process.cwd(), file.path), file.contents]));
const sizes = Object.fromEntries(
  Object.entries(built.metafile.outputs)
    .filter(([file]) => /\.(js|css)$/.test(file))
    .map(([file, output]) => {
      const bytes = output.bytes;
      const content = contentOf.get(relative(process.cwd(), resolve(file))) ?? new Uint8Array();
      return [file.slice(consoleDir.length + 1), { bytes, gzipBytes: gzipSync(content, { level: 9 }).byteLength }];
    }),
);
writeFileSync(join(consoleDir, 'bundle-size.json'), `${JSON.stringify(sizes, null, 2)}\n`);
if (!values.quiet) {
  const line = Object.entries(sizes).map(([file, size]) => `${file} ${(size.bytes / 1024).toFixed(1)} KiB (${(size.gzipBytes / 1024).toFixed(1)} KiB gzipped)`);
  console.error(`console: ${line.join(', ')}`);
}
