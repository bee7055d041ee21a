/**
 * `npm run bench:profile`: where a request's time goes in the mock as `npm start` runs it (SQLite, every response
 * checked, a log line per request; the rate limit lifted so that the load is answered). The built mock runs under
 * V8's sampling profiler (`--cpu-prof`) while it answers a warm-up and then a measured load of one operation; each
 * sample's frame is mapped back through the bundle's source maps to the file it was written in, and its time is
 * counted under the part of the pipeline that file belongs to (parse, auth, rate limit, routing, validation,
 * idempotency, handler, store, response check, journal, logging, Node's own HTTP, garbage collection); a built-in
 * (JSON.stringify, a string's UTF-8 encoding) is counted where it is called from. Prints the shares per operation,
 * and the functions that cost most. A measurement, not a test.
 *
 *   npm run bench:profile -- [--duration 10] [--connections 10] [--operations getCustomer,createCustomer] [--root DIR] [--mock-args=ARGS]
 *
 * `--root DIR` profiles the mock of another checkout (a `git worktree` of the version before), for a before/after;
 * `--mock-args` another configuration (`--store memory`, `--no-check-responses`).
 */
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildMock, startMockProcess } from '../mock/launch/mock-process.ts';
import { asShipped, createCustomerToRead, loadRequest, operationNames, type OperationName } from './load.ts';

const usage = `Usage: npm run bench:profile -- [--duration S] [--connections N] [--operations LIST] [--top N] [--root DIR] [--mock-args=ARGS]

Profiles the mock as npm start runs it (SQLite, responses checked, a log line per request) under V8's --cpu-prof
while it answers one operation, and prints where a request's time goes, by part of the pipeline and by function.
  --duration S      seconds profiled per operation, after a 2 s warm-up (default 10)
  --connections N   concurrent connections of the load (default 10)
  --operations LIST operations to profile, comma-separated (default ${operationNames.join(',')})
  --top N           functions listed, costliest first (default 15)
  --root DIR        profile the mock of another checkout, e.g. a \`git worktree\` of the version before
  --mock-args=ARGS  more arguments for the mock, e.g. --mock-args="--store memory" (default none: as npm start runs it)
  --help            this text`;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    operations: { type: 'string', default: operationNames.join(',') },
    root: { type: 'string' },
    top: { type: 'string', default: '15' },
    'mock-args': { type: 'string', default: '' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const mockArgs = values['mock-args'].split(/\s+/).filter((arg) => arg !== '');
const projectRoot = values.root ?? fileURLToPath(new URL('../', import.meta.url));
const duration = Number(values.duration);
const connections = Number(values.connections);
const top = Number(values.top);

/** Where a file's time is counted, first match wins: by the path of the source file the sample's frame is in. */
const parts: [string, RegExp][] = [
  ['response check', /contract-model\/(response-validator|schema-compiler)|mock\/http\/finalise|answer-finaliser|node_modules\/ajv/],
  ['request validation', /request-validator|validate-request|field-errors|contract-model\/schema-errors/],
  ['journal', /mock\/journal\//],
  ['idempotency', /mock\/idempotency\//],
  ['store', /mock\/store\/|sorted-btree/],
  ['rate limit', /mock\/rate-limit\//],
  ['auth', /mock\/auth\//],
  ['routing', /router|route-request|request-target/],
  ['body parse', /read-body|json-text|jsonc-parser/],
  ['logging', /pino|logger|sonic-boom/],
  ['handler', /mock\/(customers|companies|documents|reference|formation|webhooks)\//],
  ['pipeline and answer', /mock\/(pipeline|http|app|cors|faults|forced-answers)\//],
  ["Node's own HTTP", /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|timers|js_stream))|node:events/],
  ['other Node internals', /^node:/],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const maps = new Map<string, SourceMap | null>();
async function sourceOf(url: string, line: number, column: number): Promise<string> {
  if (!url.startsWith('file://') || !url.endsWith('.mjs')) return url;
  if (!maps.has(url)) {
    const map = await readFile(`${fileURLToPath(url)}.map`, 'utf8').then((text) => new SourceMap(JSON.parse(text)), () => null);
    maps.set(url, map);
  }
  const entry = maps.get(url)?.findEntry(line, column);
  const source = entry && 'originalSource' in entry ? entry.originalSource : undefined;
  if (!source) return url;
  const path = source.startsWith('file://') ? fileURLToPath(source) : join(projectRoot, '.build', source);
  return relative(projectRoot, path);
}

/** Self time per (part, function), in microseconds. */
async function selfTimes(profile: Profile): Promise<{ byPart: Map<string, number>; byFunction: Map<string, number>; total: number }> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byPart = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber, columnNumber } = (nodes.get(id) as ProfileNode).callFrame;
    if (functionName === '(idle)') continue;
    total += micros;
    // A built-in (no file of its own) is counted where it is called from: JSON.stringify in the journal is the journal's.
    let caller = parents.get(id);
    while (url === '' && caller !== undefined && (nodes.get(caller) as ProfileNode).callFrame.url === '') caller = parents.get(caller);
    const callerFrame = caller === undefined ? undefined : (nodes.get(caller) as ProfileNode).callFrame;
    const file = url !== '' ? await sourceOf(url, lineNumber, columnNumber) : callerFrame ? await sourceOf(callerFrame.url, callerFrame.lineNumber, callerFrame.columnNumber) : '';
    const part =
      functionName === '(garbage collector)' ? 'garbage collection'
      : functionName === '(program)' ? 'native (V8, libuv, the kernel calls)'
      : (parts.find(([, pattern]) => pattern.test(file))?.[0] ?? 'other');
    byPart.set(part, (byPart.get(part) ?? 0) + micros);
    const name = url === '' ? `${functionName || '(anonymous)'} (built-in, called from ${callerFrame?.functionName || '(anonymous)'} ${file})` : `${functionName || '(anonymous)'} ${file}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  return { byPart, byFunction, total };
}

async function profileOperation(operation: OperationName): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'profile-'));
  const profiles = join(dir, 'profiles');
  const mock = await startMockProcess({ args: [...asShipped, ...mockArgs], logDir: dir, nodeOptions: ['--cpu-prof', `--cpu-prof-dir=${profiles}`], root: projectRoot });
  let requests = 0;
  try {
    const customerId = await createCustomerToRead(mock.url, 'the profiled mock');
    const run = (seconds: number) => autocannon({ url: mock.url, connections, duration: seconds, requests: [loadRequest(operation, customerId)] });
    await run(2);
    requests = (await run(duration)).requests.total;
  } finally {
    await mock.stop();
  }
  const [file] = (await readdir(profiles)).filter((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${profiles}`);
  const { byPart, byFunction, total } = await selfTimes(JSON.parse(await readFile(join(profiles, file), 'utf8')) as Profile);
  await rm(dir, { recursive: true, force: true });
  // The warm-up, start and stop are in the profile too: the shares are of everything, the µs per request of the load.
  const perRequest = (micros: number) => micros / Math.max(1, requests * (1 + 2 / duration));
  console.log(`\n${operation}: ${requests} requests in ${duration} s after a 2 s warm-up, ${connections} connections; ${perRequest(total).toFixed(1)} µs of CPU per request sampled\n`);
  console.log('| part | share | µs/request |\n|---|---|---|');
  for (const [part, micros] of [...byPart].sort((a, b) => b[1] - a[1])) {
    console.log(`| ${part} | ${((100 * micros) / total).toFixed(1)}% | ${perRequest(micros).toFixed(1)} |`);
  }
  console.log(`\nThe ${top} functions that cost most (self time):`);
  for (const [name, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
}

await buildMock({ root: projectRoot });
console.log(`The mock as npm start runs it${mockArgs.length > 0 ? `, with ${mockArgs.join(" ")}` : ""} (${projectRoot}), under --cpu-prof.`);
for (const operation of (values.operations ?? '').split(',').map((name) => name.trim()) as OperationName[]) await profileOperation(operation);
