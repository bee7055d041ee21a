/**
 * Writes generated/ from the contract in openapi/: the bundled document, its dereferenced copy (for tools with
 * weak $ref support, such as Dredd), the TypeScript types of its paths, webhooks and schemas, and standalone HTML docs. The
 * mock's admin API (mock/admin/openapi/) gets the same under generated/mock-admin/, except the dereferenced copy.
 *
 *   npm run generate            regenerate generated/
 *   npm run generate -- --check  regenerate into a scratch folder and fail, listing them, when files differ
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readContractFacts } from '../contract-model/contract-facts.ts';
import { buildReferenceDocs } from './reference-docs.ts';
import type { ContractDocument } from '../contract-model/document.ts';
import { listOperations } from '../contract-model/operations.ts';

const run = promisify(execFile);
const root = resolve(fileURLToPath(import.meta.url), '../..');
const bin = (name: string) => join(root, 'node_modules/.bin', name);
const generatedDir = join(root, 'generated');
const contractRoot = join(root, 'openapi/openapi.yaml');
const adminRoot = join(root, 'mock/admin/openapi/openapi.yaml');

type Step = { file: string; make: (out: string) => Promise<unknown> };

const bundle = (source: string, file: string, ...options: string[]): Step => ({
  file,
  make: async (out) => {
    await mkdir(dirname(join(out, file)), { recursive: true });
    return run(bin('redocly'), ['bundle', source, ...options, '-o', join(out, file)], quiet);
  },
});

const types = (bundled: string, file: string): Step => ({
  file,
  make: (out) =>
    run(
      bin('openapi-typescript'),
      [
        join(out, bundled),
        '-o', join(out, file),
        '--redocly', join(root, 'scripts/openapi-typescript.redocly.yaml'),
        // Request properties with a default (entityType: LLC) may be omitted by the caller.
        '--default-non-nullable=false',
        '--root-types',
        '--root-types-no-schema-prefix',
      ],
      quiet,
    ),
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
  bundle(contractRoot, 'openapi.dereferenced.json', '--dereferenced'),
  types('openapi.json', 'openapi.d.ts'),
  bundle(adminRoot, 'mock-admin/openapi.json'),
  facts('openapi.json', 'mock-admin/openapi.json', 'contract-facts.ts'),
  clientContract('openapi.json', 'client-contract.ts'),
  schemaTypes('openapi.json', 'schema-types.ts'),
  docs('openapi.json', 'docs/index.html', 'Partner Formation API', { samples: true }),
  types('mock-admin/openapi.json', 'mock-admin/openapi.d.ts'),
  docs('mock-admin/openapi.json', 'mock-admin/docs/index.html', 'Partner Formation mock: admin API'),
];

const quiet = {
  cwd: root,
  maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
};

async function generateInto(out: string): Promise<void> {
  for (const step of steps) {
    try {
      await step.make(out);
    } catch (error) {
      const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
      throw new Error(`generating ${step.file} failed:\n${stdout}${stderr}`);
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
