/**
 * `npm run bench:instructions`: the CPU instructions each target executes per request, counted by valgrind's
 * callgrind. Unlike req/s and CPU time, a count does not depend on what else the machine is doing, so two
 * versions of the mock can be compared on a shared, noisy machine and the difference trusted.
 *
 * Each target runs under callgrind: it first answers a warm-up load (start-up, the JIT's tiers and validators
 * built on first use are done with by then; under valgrind the JIT needs thousands of requests to settle), then
 * the measured requests are sent in windows: before each the counters are zeroed (`callgrind_control --zero`),
 * after it they are dumped. A target's count is the mean over every window, garbage collection included: a window
 * in which a major collection ran costs several times the others, and when one falls (once every few thousand
 * requests) depends on the heap, so only a count over many thousand requests compares two versions. The spread
 * of the windows and their median (which leaves the collections out) show how much of the count they are.
 * Only user-space instructions are counted (the kernel's share of a socket write is not), and an instruction is
 * not a fixed time, so compare the ratios, not the counts with another machine's. Node runs `--single-threaded`:
 * V8's compiler and garbage-collector helper threads would add work whose amount within the counted window
 * depends on timing (two counts of one version then differ by several per cent); on one thread they repeat.
 *
 *   npm run bench:instructions -- [--warm-up 5000] [--requests 20000] [--windows 10] [--connections 10] [--baseline DIR]
 *
 * `--baseline DIR` counts another checkout of the project (say a `git worktree` of the last release) beside this
 * one, in the same run, and prints each target's ratio to its baseline twin: how two versions of the mock compare.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { buildMock, startMockProcess } from '../mock/launch/mock-process.ts';
import { asShipped, createCustomerToRead, exampleCustomerId, freePort, loadRequest, operationNames, spawnServer, storeOnly, type OperationName } from './load.ts';

const usage = `Usage: npm run bench:instructions -- [--warm-up N] [--requests N] [--windows N] [--connections N] [--baseline DIR]

Counts the instructions per request of the mock (memory store with response checking off and on, SQLite store)
and of a bare node:http server,
for getCustomer and an idempotent createCustomer, with valgrind's callgrind (apt-get install valgrind).
  --warm-up N       requests answered before counting starts (default 5000)
  --requests N      requests counted (default 20000)
  --windows N       windows the counted requests are sent in, to show their spread and median (default 10)
  --connections N   autocannon connections (default 10)
  --baseline DIR    also count the mock of another checkout (memory and SQLite stores), and print each target's
                    ratio to that baseline: e.g. a \`git worktree add ../base v1\` of the version to compare with
  --only NAMES      count only these targets, comma-separated: shipped (as npm start runs it), memory, memory-checked, sqlite, bare`;

const { values } = parseArgs({
  options: {
    'warm-up': { type: 'string', default: '5000' },
    requests: { type: 'string', default: '20000' },
    windows: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    baseline: { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
const warmUp = Number(values['warm-up']);
const requests = Number(values.requests);
const windows = Number(values.windows);
const perWindow = Math.floor(requests / windows);
const connections = Number(values.connections);

interface Target {
  name: string;
  /** What `--only` calls it. */
  id: string;
  /** The checkout whose mock it runs, when not this one. */
  root?: string;
  /** Starts the target under callgrind, writing its counts to `outFile`. */
  start(outFile: string, dir: string): Promise<{ url: string; pid: number; customerId: string; stop(): Promise<void> }>;
}

// Under valgrind a process runs tens of times slower: the mock's start and stop get minutes, not seconds.
const underValgrindTimeoutMs = 5 * 60_000;
const callgrind = (outFile: string) => ['valgrind', '-q', '--tool=callgrind', `--callgrind-out-file=${outFile}`];
const singleThreaded = ['--single-threaded'];

function mockTarget(name: string, id: string, extra: readonly string[], root?: string, settings: readonly string[] = storeOnly): Target {
  return {
    name,
    id,
    ...(root === undefined ? {} : { root }),
    async start(outFile, dir) {
      const args = [...settings, ...extra];
      const mock = await startMockProcess({ args, logDir: dir, runUnder: callgrind(outFile), nodeOptions: singleThreaded, startTimeoutMs: underValgrindTimeoutMs, stopGraceMs: underValgrindTimeoutMs, ...(root === undefined ? {} : { root }) });
      try {
        return { url: mock.url, pid: mock.pid, customerId: await createCustomerToRead(mock.url, name), stop: () => mock.stop() };
      } catch (error) {
        await mock.stop();
        throw error;
      }
    },
  };
}

const bareTarget: Target = {
  name: 'bare node:http',
  id: 'bare',
  async start(outFile) {
    const port = await freePort();
    const [valgrind, ...valgrindArgs] = callgrind(outFile) as [string, ...string[]];
    const bare = await spawnServer(valgrind, [...valgrindArgs, process.execPath, ...singleThreaded, 'bench/bare-server.mjs', String(port)], port, { timeoutMs: underValgrindTimeoutMs });
    return { ...bare, customerId: exampleCustomerId };
  },
};

const baselineRoot = values.baseline;
const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((name) => name.trim()));
const allTargets: Target[] = [
  mockTarget('mock · as npm start runs it', 'shipped', [], undefined, asShipped),
  mockTarget('mock · memory', 'memory', ['--store', 'memory']),
  mockTarget('mock · memory, responses checked', 'memory-checked', ['--store', 'memory', '--validate-responses', 'on']),
  mockTarget('mock · sqlite', 'sqlite', []),
  ...(baselineRoot === undefined
    ? []
    : [
        mockTarget('baseline · as npm start runs it', 'shipped', [], baselineRoot, asShipped),
        mockTarget('baseline · memory', 'memory', ['--store', 'memory'], baselineRoot),
        mockTarget('baseline · sqlite', 'sqlite', [], baselineRoot),
      ]),
  bareTarget,
];
const targets = allTargets.filter((target) => only === undefined || only.has(target.id));
/** A target's baseline twin: the same store in the baseline checkout. */
const twinOf = (target: Target) => (target.root === undefined && target.name.startsWith('mock · ') ? targets.find((other) => other.root !== undefined && other.id === target.id) : undefined);

interface Count {
  /** Instructions per request over every window: the count. */
  mean: number;
  /** In the median window. */
  median: number;
  /** The cheapest and the dearest window's, per request. */
  low: number;
  high: number;
}

/** Instructions per request of `target` answering `operation`, after the warm-up, window by window. */
async function countPerRequest(target: Target, operation: OperationName, workDir: string): Promise<Count> {
  const dir = await mkdtemp(join(workDir, 'run-'));
  const outFile = join(dir, 'callgrind.out');
  const running = await target.start(outFile, dir);
  const load = async (amount: number) => {
    const result = await autocannon({ url: running.url, connections, amount, timeout: 120, requests: [loadRequest(operation, running.customerId)] });
    if (result.non2xx + result.errors > 0) throw new Error(`${target.name} ${operation}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  };
  try {
    await load(warmUp);
    for (let window = 0; window < windows; window += 1) {
      await callgrindControl('--zero', running.pid);
      await load(perWindow);
      await callgrindControl('--dump', running.pid);
    }
  } finally {
    await running.stop();
  }
  // Each dump asked for is written next to the out file, numbered from 1.
  const perRequest: number[] = [];
  for (let window = 1; window <= windows; window += 1) {
    const summary = /^summary:\s+(\d+)/m.exec(await readFile(`${outFile}.${window}`, 'utf8'));
    if (!summary) throw new Error(`${outFile}.${window} has no summary line`);
    perRequest.push(Number(summary[1]) / perWindow);
  }
  const sorted = perRequest.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return {
    median: sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2,
    mean: perRequest.reduce((sum, count) => sum + count, 0) / perRequest.length,
    low: sorted[0] as number,
    high: sorted.at(-1) as number,
  };
}

async function callgrindControl(command: string, pid: number): Promise<void> {
  await promisify(execFile)('callgrind_control', [command, String(pid)]);
}

/** Runs the jobs at most `width` at a time: one per core, as counts do not depend on timing. */
async function inPool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await (jobs[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

async function main(): Promise<void> {
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!(warmUp >= 0 && requests > 0)) throw new Error(`--warm-up and --requests take counts of requests, not ${values['warm-up']} and ${values.requests}`);
  if (!(Number.isInteger(windows) && windows >= 1 && perWindow >= 100)) throw new Error(`--windows takes a whole number from 1 to --requests / 100, not ${values.windows}`);
  if (spawnSync('valgrind', ['--version']).error) throw new Error('valgrind is not installed (apt-get install valgrind): it counts the instructions');
  if (baselineRoot !== undefined && !existsSync(join(baselineRoot, 'scripts', 'build-mock.mjs'))) throw new Error(`--baseline ${baselineRoot} is not a checkout of this project (no scripts/build-mock.mjs)`);
  await buildMock();
  if (baselineRoot !== undefined) await buildMock({ root: baselineRoot });
  const workDir = await mkdtemp(join(tmpdir(), 'bench-instructions-'));
  try {
    const cases = targets.flatMap((target) => operationNames.map((operation) => ({ target, operation })));
    console.log(`Counting ${cases.length} runs under callgrind, two at a time; each takes minutes.`);
    const counts = await inPool(cases.map(({ target, operation }) => () => countPerRequest(target, operation, workDir)), 2);
    const perRequest = cases.map((found, index) => ({ ...found, count: counts[index] as Count }));
    const bare = (operation: OperationName) => perRequest.find((row) => row.target === bareTarget && row.operation === operation)?.count.mean ?? NaN;
    console.log(`\nInstructions per request (callgrind, user space): ${requests} requests counted in ${windows} windows after ${warmUp} not counted, ${connections} connections\n`);
    const twinCount = (row: (typeof perRequest)[number]) => perRequest.find((other) => other.target === twinOf(row.target) && other.operation === row.operation)?.count;
    const thousands = (count: number) => `${(count / 1000).toFixed(1)} k`;
    console.log(['target'.padEnd(32), 'operation'.padEnd(15), 'instructions/req'.padStart(17), 'windows'.padStart(17), 'median'.padStart(9), '÷ bare'.padStart(7), ...(baselineRoot === undefined ? [] : ['÷ baseline'.padStart(11), 'median ÷'.padStart(9)])].join(' '));
    for (const row of perRequest) {
      const { median, mean, low, high } = row.count;
      const twin = twinCount(row);
      const columns = [
        row.target.name.padEnd(32), row.operation.padEnd(15), thousands(mean).padStart(17), `${thousands(low)}–${thousands(high)}`.padStart(17), thousands(median).padStart(9),
        (Number.isNaN(bare(row.operation)) ? '' : (mean / bare(row.operation)).toFixed(2)).padStart(7),
      ];
      if (baselineRoot !== undefined) columns.push((twin === undefined ? '' : (mean / twin.mean).toFixed(3)).padStart(11), (twin === undefined ? '' : (median / twin.median).toFixed(3)).padStart(9));
      console.log(columns.join(' '));
    }
    if (baselineRoot !== undefined) console.log(`\nbaseline: ${baselineRoot}`);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
