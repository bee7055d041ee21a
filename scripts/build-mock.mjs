// Builds the mock's bundle and the console (scripts/mock-bundle.mjs) and prints the console's sizes.
// `--outdir DIR` writes elsewhere, `--entry FILE` bundles another entry as main.mjs (the mock's package, mock/package/build.ts),
// `--quiet` prints nothing, `--if-changed` builds only when something .build/ was built from changed since, as
// `npm start` does (what starts the built mock, the tests' launcher and `npm run dev`, asks for it: about 0.4 s of
// CPU a build, twenty builds of the same files in a run of `npm test` before).
import { parseArgs } from 'node:util';
import { buildMockBundle, isFresh, sizesLine } from './mock-bundle.mjs';

const { values } = parseArgs({ options: { outdir: { type: 'string' }, entry: { type: 'string' }, quiet: { type: 'boolean' }, 'if-changed': { type: 'boolean' } } });
if (values['if-changed'] && (values.outdir !== undefined || values.entry !== undefined)) {
  console.error('build-mock: --if-changed is for .build/ as npm start runs it: it cannot be given with --outdir or --entry');
  process.exit(2);
}
if (!(values['if-changed'] && isFresh())) {
  // A bundle built elsewhere (a package's) is not the one `npm start` looks for: what it read is not noted.
  const { sizes } = await buildMockBundle({ ...(values.outdir ? { outdir: values.outdir, note: false } : {}), ...(values.entry ? { entry: values.entry } : {}) });
  if (!values.quiet) console.error(sizesLine(sizes));
}
