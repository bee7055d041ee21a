// Bundles the mock's TypeScript into ES modules (.build/main.mjs and its lazily loaded chunks) so that `npm start` runs it with plain Node:
// a TypeScript loader would add about a second to every start. Packages stay external, loaded from node_modules.
// `--outdir DIR` writes elsewhere (the mock's package, mock/package/build.ts).
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({ options: { outdir: { type: 'string' } } });

await build({
  entryPoints: ['mock/main.ts'],
  outdir: values.outdir ?? '.build',
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
});
