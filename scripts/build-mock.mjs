// Builds the mock's bundle and the console (scripts/mock-bundle.mjs) and prints the console's sizes.
// `--outdir DIR` writes elsewhere, `--entry FILE` bundles another entry as main.mjs (the mock's package, mock/package/build.ts),
// `--quiet` prints nothing.
import { parseArgs } from 'node:util';
import { buildMockBundle, sizesLine } from './mock-bundle.mjs';

const { values } = parseArgs({ options: { outdir: { type: 'string' }, entry: { type: 'string' }, quiet: { type: 'boolean' } } });
// A bundle built elsewhere (a package's) is not the one `npm start` looks for: what it read is not noted.
const { sizes } = await buildMockBundle({ ...(values.outdir ? { outdir: values.outdir, note: false } : {}), ...(values.entry ? { entry: values.entry } : {}) });
if (!values.quiet) console.error(sizesLine(sizes));
