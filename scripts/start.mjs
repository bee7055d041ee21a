// `npm start`: the mock, built first when anything it is built from changed since the last build (else as built),
// then run in this same process: one Node starts, and nothing is printed before the mock's own start line.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { buildMockBundle, isFresh } from './mock-bundle.mjs';

if (!isFresh()) await buildMockBundle();
process.setSourceMapsEnabled(true);
await import(pathToFileURL(resolve('.build/main.mjs')).href);
