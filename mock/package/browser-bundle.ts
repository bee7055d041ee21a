/**
 * The mock's Mock Service Worker entry bundled for browsers (msw-browser.ts): one ES module and the chunks it loads
 * lazily (the PDF renderer), minified, with every package but `msw` in it (the page's own msw runs the handlers).
 * What needs Node stays out: Node's modules are replaced by the small ones of browser/ (the few calls the mock makes
 * of them, or a refusal that says it needs Node), and the mock's modules that need Node (the SQLite and Redis
 * stores, Prism, the webhook targets' checks) by browser/node-only.ts. The build fails when anything of those
 * reaches the bundle, or when the bundle grows past its limit.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type OutputFile, type Plugin } from 'esbuild';

const here = import.meta.dirname;
const root = join(here, '..', '..');
const shim = (name: string) => join(here, 'browser', name);

/** Node's modules, as the browser build has them. */
const nodeModules: Record<string, string> = {
  'node:crypto': shim('node-crypto.ts'),
  'node:zlib': shim('node-zlib.ts'),
  'node:util': shim('node-util.ts'),
  'node:os': shim('node-os.ts'),
  'node:net': shim('node-net.ts'),
  'node:module': shim('node-module.ts'),
  'node:fs': shim('node-files.ts'),
  'node:fs/promises': shim('node-files.ts'),
  'node:path': shim('node-files.ts'),
  'node:url': shim('node-files.ts'),
  'node:perf_hooks': shim('node-files.ts'),
};

/** The mock's modules that need Node, by their path from the project's root, and what stands in for them. */
const nodeOnly: Record<string, string> = {
  'mock/store/sqlite/sqlite-store.ts': shim('node-only.ts'),
  'mock/store/redis/redis-store.ts': shim('node-only.ts'),
  'mock/pipeline/prism-engine.ts': shim('node-only.ts'),
  'mock/webhooks/allowed-targets.ts': shim('node-only.ts'),
  'mock/proxy/recording.ts': shim('node-only.ts'),
  'mock/served-documents/live-docs.ts': shim('node-only.ts'),
  'contract-model/generated-files.ts': shim('generated-files.ts'),
};

/** What must never be in the bundle: Node's stores, servers, Prism, the DNS-checking sender's client. */
const forbidden = [/node_modules\/(ioredis|undici|@stoplight|pino-pretty)\//, /^mock\/(store\/(sqlite|redis)|served-documents|launch|proxy\/recording)\//, /^mock\/http\/(write-answer|client-error|node-request|event-streams)\.ts$/];

/** The most the bundle (its entry and every chunk, minified and gzipped) may weigh; printed by every build. */
export const browserBundleLimit = { gzipBytes: 600 * 1024 };

const inBrowser: Plugin = {
  name: 'mock-in-the-browser',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^node:/ }, (args) => {
      const path = nodeModules[args.path];
      if (!path) return { errors: [{ text: `${args.path} has no counterpart in the browser build (mock/package/browser-bundle.ts), imported by ${relative(root, args.importer)}` }] };
      return { path };
    });
    esbuild.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = nodeOnly[relative(root, resolve(dirname(args.importer), args.path))];
      return path ? { path } : undefined;
    });
  },
};

export interface BrowserBundleSizes {
  files: Record<string, { bytes: number; gzipBytes: number }>;
  total: { bytes: number; gzipBytes: number };
  /** What a page loads with the entry: it and the chunks it imports, not those loaded later (the PDF renderer). */
  atStart: { bytes: number; gzipBytes: number };
}

/** Builds the browser bundle into `outdir`; its sizes. Throws when it holds what needs Node, or is over its limit. */
export async function buildBrowserBundle(outdir: string): Promise<BrowserBundleSizes> {
  const built = await build({
    entryPoints: { 'msw-browser': join(here, 'msw-browser.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    minify: true,
    sourcemap: true,
    metafile: true,
    legalComments: 'linked',
    external: ['msw'],
    inject: [shim('globals.ts')],
    plugins: [inBrowser],
    logLevel: 'warning',
    write: false,
  });
  for (const file of built.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.contents);
  }
  const reached = Object.keys(built.metafile.inputs).filter((input) => forbidden.some((pattern) => pattern.test(input)));
  if (reached.length > 0) throw new Error(`the browser bundle holds what needs Node: ${reached.join(', ')}`);
  const sizes = sizesOf(built.outputFiles, loadedAtStart(built.metafile, outdir));
  if (sizes.total.gzipBytes > browserBundleLimit.gzipBytes) throw new Error(`the browser bundle is ${kib(sizes.total.gzipBytes)} gzipped, over its limit of ${kib(browserBundleLimit.gzipBytes)}`);
  return sizes;
}

/** The scripts the entry loads as it starts, by name: it, and what it imports statically, again and again. */
function loadedAtStart(metafile: Metafile, outdir: string): Set<string> {
  const entry = Object.keys(metafile.outputs).find((path) => basename(path) === 'msw-browser.mjs');
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(basename(path))) return;
    loaded.add(basename(path));
    for (const imported of metafile.outputs[path]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  if (entry === undefined) throw new Error(`the browser build wrote no msw-browser.mjs into ${outdir}`);
  visit(entry);
  return loaded;
}

/** Each script's size, plain and gzipped (what a page downloads), their sum, and the sum of those loaded at start. */
function sizesOf(files: readonly OutputFile[], atStart: ReadonlySet<string>): BrowserBundleSizes {
  const sizes: BrowserBundleSizes = { files: {}, total: { bytes: 0, gzipBytes: 0 }, atStart: { bytes: 0, gzipBytes: 0 } };
  for (const file of files) {
    if (!file.path.endsWith('.mjs')) continue;
    const size = { bytes: file.contents.byteLength, gzipBytes: gzipSync(file.contents, { level: 9 }).byteLength };
    const name = basename(file.path);
    sizes.files[name] = size;
    for (const sum of atStart.has(name) ? [sizes.total, sizes.atStart] : [sizes.total]) {
      sum.bytes += size.bytes;
      sum.gzipBytes += size.gzipBytes;
    }
  }
  return sizes;
}

/** One line of the sizes, as the build prints it. */
export function browserSizesLine(sizes: BrowserBundleSizes): string {
  return `browser bundle: ${kib(sizes.total.bytes)} (${kib(sizes.total.gzipBytes)} gzipped, limit ${kib(browserBundleLimit.gzipBytes)}) in ${Object.keys(sizes.files).length} scripts; loaded at start ${kib(sizes.atStart.bytes)} (${kib(sizes.atStart.gzipBytes)} gzipped), the rest (the PDF renderer) when first needed`;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
