/**
 * Writes generated/ from the contract in openapi/: the bundled document, its dereferenced copy (for tools with
 * weak $ref support, such as Dredd), the TypeScript types of its paths, webhooks and schemas, and standalone HTML docs. The
 * mock's admin API (mock/admin/openapi/) gets the same under generated/mock-admin/, except the dereferenced copy.
 *
 *   npm run generate            regenerate generated/
 *   npm run generate -- --check  regenerate into a scratch folder and fail, listing them, when files differ
 */
import { rmSync } from 'node:fs';
import { mkdtemp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundle as bundleSource, loadConfig, type Config } from '@redocly/openapi-core';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { readContractFacts } from '../contract-model/contract-facts.ts';
import { describeProblems } from './dev/contract-problems.ts';
import { buildReferenceDocs } from './reference-docs.ts';
import type { ContractDocument, JsonObject } from '../contract-model/document.ts';
import { listOperations } from '../contract-model/operations.ts';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const generatedDir = join(root, 'generated');
const contractRoot = join(root, 'openapi/openapi.yaml');
const adminRoot = join(root, 'mock/admin/openapi/openapi.yaml');

type Step = { file: string; make: (out: string) => Promise<unknown> };

// The bundles and the types are made in this process: `redocly bundle` and openapi-typescript started as CLIs, five
// per run, each loaded itself first (`--check` took 5.5 s of CPU so, 4.6 s now, 2.7 s when the docs' pages are kept:
// reference-docs.ts); `npm run dev`, the release and the tests run it often.
// Each config is read once, when a step first needs it.
let redoclyConfig: Promise<Config> | undefined;
let typesConfig: Promise<Config> | undefined;
const bundleConfig = () => (redoclyConfig ??= loadConfig({ configPath: join(root, 'redocly.yaml') }));
// openapi-typescript reads a Redocly config, and with the root redocly.yaml it would type the split sources and
// ignore its input: it gets an empty one (scripts/openapi-typescript.redocly.yaml says so too).
const typesRedoclyConfig = () => (typesConfig ??= loadConfig({ configPath: join(root, 'scripts/openapi-typescript.redocly.yaml') }));

/**
 * The order `redocly bundle` writes a document's top-level keys in (its CLI puts these first, in this order, then the
 * rest as the source has them: `x-service-limits` after `components`), so that generated/ reads as it always has.
 */
const rootKeyOrder = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'security', 'tags', 'externalDocs', 'paths', 'webhooks', 'x-webhooks', 'components'];

const bundle = (source: string, file: string, options: { dereferenced?: boolean } = {}): Step => ({
  file,
  make: async (out) => {
    const { bundle: result, problems } = await bundleSource({ ref: source, config: await bundleConfig(), dereference: options.dereferenced === true });
    const errors = describeProblems(problems.filter((problem) => problem.severity === 'error'));
    if (errors.length > 0) throw new Error(errors.map((line) => `  ${line}`).join('\n'));
    const document = result.parsed as JsonObject;
    const ordered = Object.assign(Object.fromEntries(rootKeyOrder.filter((key) => Object.hasOwn(document, key)).map((key) => [key, document[key]])), document);
    await mkdir(dirname(join(out, file)), { recursive: true });
    await writeFile(join(out, file), JSON.stringify(ordered, null, 2));
  },
});

const types = (bundled: string, file: string): Step => ({
  file,
  make: async (out) => {
    const typed = await openapiTS(pathToFileURL(join(out, bundled)), {
      redocly: await typesRedoclyConfig(),
      // Request properties with a default (entityType: LLC) may be omitted by the caller.
      defaultNonNullable: false,
      rootTypes: true,
      rootTypesNoSchemaPrefix: true,
      silent: true,
    });
    await writeFile(join(out, file), `${COMMENT_HEADER}${astToString(typed)}`);
  },
});

const docs = (bundled: string, file: string, title: string, options: { samples?: boolean } = {}): Step => ({
  file,
  make: async (out) => {
    const document = JSON.parse(await readFile(join(out, bundled), 'utf8')) as ContractDocument;
    const changelog = options.samples ? await readFile(join(root, 'CHANGELOG.md'), 'utf8') : undefined;
    await buildReferenceDocs(document, join(out, file), { projectRoot: root, title, ...(changelog === undefined ? {} : { changelog }) });
  },
});

/**
 * The contract's facts (contract-model/contract-facts.ts) as a module, for code that does not read the bundle: the
 * API's, and the admin contract's that say what a webhook secret is.
 */
const facts = (bundled: string, adminBundled: string, file: string): Step => ({
  file,
  make: async (out) => {
    const document = JSON.parse(await readFile(join(out, bundled), 'utf8')) as ContractDocument;
    const adminDocument = JSON.parse(await readFile(join(out, adminBundled), 'utf8')) as ContractDocument;
    const module = [
      '// Written by `npm run generate` from the contract (openapi/): the facts contract-model/contract-facts.ts reads.',
      "import type { ContractFacts } from '../contract-model/contract-facts-type.ts';",
      '',
      `export const contractFacts: ContractFacts = ${JSON.stringify(readContractFacts(document, adminDocument), null, 2)};`,
      '',
    ].join('\n');
    await writeFile(join(out, file), module);
  },
});

/**
 * What the client needs of the contract at run time, and no more (it must stay small in a browser bundle): the
 * webhook event types, and each operation's shape (path parameters, whether it takes parameters or a body).
 */
const clientContract = (bundled: string, file: string): Step => ({
  file,
  make: async (out) => {
    const document = JSON.parse(await readFile(join(out, bundled), 'utf8')) as ContractDocument;
    const shapes = Object.fromEntries(
      listOperations(document).map((operation) => [
        `${operation.method.toLowerCase()} ${operation.pathTemplate}`,
        {
          pathParameters: operation.parameters.filter((p) => p.in === 'path').map((p) => p.name),
          takesParameters: operation.parameters.some((p) => p.in === 'path' || p.in === 'query'),
          takesBody: operation.requestBody !== undefined,
        },
      ]),
    );
    const module = [
      '// Written by `npm run generate` from the contract (openapi/): what client/contract-bundle.ts reads at run time.',
      '',
      `export const webhookEventTypes: readonly string[] = ${JSON.stringify(Object.keys(document.webhooks ?? {}), null, 2)};`,
      '',
      `export const operationShapes: Readonly<Record<string, { pathParameters: readonly string[]; takesParameters: boolean; takesBody: boolean }>> = ${JSON.stringify(shapes, null, 2)};`,
      '',
    ].join('\n');
    await writeFile(join(out, file), module);
  },
});

/**
 * A named type for each schema of the contract (`components.schemas`), as openapi.d.ts declares them, for the client
 * to export: a schema added to the contract gets its type there with nothing written by hand.
 */
const schemaTypes = (bundled: string, file: string): Step => ({
  file,
  make: async (out) => {
    const document = JSON.parse(await readFile(join(out, bundled), 'utf8')) as ContractDocument;
    const names = Object.keys(document.components?.schemas ?? {}).sort();
    const module = [
      '// Written by `npm run generate` from the contract (openapi/): a named type per schema, for client/index.ts to export.',
      '',
      `export type {\n${names.map((name) => `  ${name},`).join('\n')}\n} from './openapi.js';`,
      '',
    ].join('\n');
    await writeFile(join(out, file), module);
  },
});

/** The artefacts, in dependency order: each step may read what an earlier one wrote into `out`. */
const steps: Step[] = [
  bundle(contractRoot, 'openapi.json'),
  bundle(contractRoot, 'openapi.dereferenced.json', { dereferenced: true }),
  types('openapi.json', 'openapi.d.ts'),
  bundle(adminRoot, 'mock-admin/openapi.json'),
  facts('openapi.json', 'mock-admin/openapi.json', 'contract-facts.ts'),
  clientContract('openapi.json', 'client-contract.ts'),
  schemaTypes('openapi.json', 'schema-types.ts'),
  docs('openapi.json', 'docs/index.html', 'Partner Formation API', { samples: true }),
  types('mock-admin/openapi.json', 'mock-admin/openapi.d.ts'),
  docs('mock-admin/openapi.json', 'mock-admin/docs/index.html', 'Partner Formation mock: admin API'),
];

async function generateInto(out: string): Promise<void> {
  for (const step of steps) {
    try {
      await step.make(out);
    } catch (error) {
      // buildReferenceDocs's `redocly build-docs` says what went wrong on its output.
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`generating ${step.file} failed:\n${stdout}${stderr || (error as Error).message}`);
    }
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

async function staleFiles(fresh: string): Promise<string[]> {
  const expected = await listFiles(fresh);
  const committed = await listFiles(generatedDir);
  const stale = committed.filter((file) => !expected.includes(file)).map((file) => `${file} (should not exist)`);
  for (const file of expected) {
    const [want, have] = await Promise.all([
      readFile(join(fresh, file)),
      readFile(join(generatedDir, file)).catch(() => undefined),
    ]);
    if (!have) stale.push(`${file} (missing)`);
    else if (!want.equals(have)) stale.push(`${file} (out of date)`);
  }
  return stale;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  if (!check) {
    // Made aside, then moved in file by file (a rename is atomic): a mock reading generated/ meanwhile (`npm run
    // dev` regenerates while it serves) sees each file whole, old or new, never missing.
    const aside = await mkdtemp(join(root, '.generated-'));
    // Stopped half-way (`npm run dev` stops it when a save comes), it leaves no folder behind.
    process.once('SIGTERM', () => {
      rmSync(aside, { recursive: true, force: true });
      process.exit(143);
    });
    try {
      await generateInto(aside);
      const files = await listFiles(aside);
      for (const file of files) {
        await mkdir(dirname(join(generatedDir, file)), { recursive: true });
        await rename(join(aside, file), join(generatedDir, file));
      }
      for (const old of await listFiles(generatedDir)) if (!files.includes(old)) await rm(join(generatedDir, old));
      console.log(`generated/: ${files.join(', ')}`);
    } finally {
      await rm(aside, { recursive: true, force: true });
    }
    return;
  }
  const scratch = await mkdtemp(join(tmpdir(), 'generated-'));
  try {
    await generateInto(scratch);
    const stale = await staleFiles(scratch);
    if (stale.length > 0) {
      console.error(`generated/ is stale; run \`npm run generate\` and commit the result:\n  ${stale.join('\n  ')}`);
      process.exitCode = 1;
    } else {
      console.log('generated/ is up to date with openapi/ and mock/admin/openapi/.');
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
