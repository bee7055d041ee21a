/**
 * `npm run bench`: the mock as `npm start` runs it (first row: the SQLite store, every response checked against the
 * contract, a log line per request; only the rate limit is lifted, so that the load is answered rather than
 * refused), then on each of its stores with checks and logs off (memory, SQLite, Redis with one and with two
 * replicas), against `prism mock -v error` and a bare node:http server, same machine, same contract, one run, side
 * by side. Prints
 * req/s, p50 and p99 for getCustomer and an idempotent createCustomer (a fresh Idempotency-Key per request), CPU
 * time per request, the ratios to the memory store, to Prism and to bare Node, the mock's start-up, and each
 * store's RSS after a million creates. Each measurement follows an unmeasured two-second warm-up of the same load.
 * Redis targets need redis-server (the script starts its own on a free port); without it they are left out.
 *
 *   npm run bench -- [--duration 10] [--connections 10] [--creates 1000000] [--stores memory,sqlite,redis] [--baseline DIR]
 *
 * `--creates 0` leaves out the memory measurement; `--stores` limits the stores measured (the memory store, the
 * baseline of the ratios, is always measured). `--baseline DIR` also measures the mock of another checkout of the
 * project (a `git worktree` of the version to compare with) on the same stores, each right after its twin, and
 * prints each target's ratio to it: how two versions compare in one run.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildMock, startMockProcess, type MockProcess } from '../mock/launch/mock-process.ts';
import { redisServerPath, startRedisServer, type RedisServer } from '../tests/support/redis-server.ts';
import { asShipped, createCustomerToRead, exampleCustomerId, freePort, loadRequest, operationNames, spawnServer, storeOnly, type OperationName } from './load.ts';

const usage = `Usage: npm run bench -- [--duration S] [--connections N] [--creates N] [--stores memory,sqlite,redis] [--baseline DIR]

  --duration S      seconds measured per target and operation, after a 2 s warm-up (default 10)
  --connections N   concurrent connections of the load (default 10)
  --creates N       idempotent creates of the memory measurement; 0 leaves it out (default 1000000)
  --stores LIST     stores to measure besides memory, the baseline of the ratios (default memory,sqlite,redis)
  --baseline DIR    also measure the mock of another checkout, each target right after its twin, and print the ratios
  --help            this text`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        duration: { type: 'string', default: '10' },
        connections: { type: 'string', default: '10' },
        creates: { type: 'string', default: '1000000' },
        stores: { type: 'string', default: 'memory,sqlite,redis' },
        baseline: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const baselineRoot = values.baseline;
const stores = new Set(['memory', ...(values.stores ?? '').split(',').map((store) => store.trim())]);
const duration = Number(values.duration);
const connections = Number(values.connections);
const creates = Number(values.creates);
const warmUpSeconds = 2;

interface Target {
  name: string;
  /** One per process serving it: two for the Redis replicas, whose load is split between them. */
  urls: string[];
  pids: number[];
  stop(): Promise<void>;
  customerId: string;
  /** The store's own server, whose memory counts too (Redis). */
  storePid?: number;
}

interface Row {
  target: string;
  operation: string;
  rps: number;
  p50: number;
  p99: number;
  /** CPU time (user + system) the target spent per answered request during the measured run. */
  cpuUsPerRequest: number;
  non2xx: number;
}

const shippedTarget = 'mock · as npm start runs it';
/** `npm start` on a terminal logs readable lines (pino-pretty) rather than JSON: measured apart. */
const terminalTarget = 'mock · the same, on a terminal';
const memoryTarget = 'mock · memory';
const bareTarget = 'bare node:http';
const prismTarget = 'prism mock -v error';

async function main(): Promise<void> {
  await buildMock();
  if (baselineRoot !== undefined) await buildMock({ root: baselineRoot });
  let redis: RedisServer | undefined;
  if (!stores.has('redis')) redis = undefined;
  else if (redisServerPath) redis = await startRedisServer();
  else console.log('redis-server not found: the Redis targets are left out (apt-get install redis-server).');
  // Each target is kept as soon as it runs, so that a later one failing to start still stops the earlier ones.
  const targets: Target[] = [];
  const rows: Row[] = [];
  try {
    // As shipped: npm start's own defaults, the rate limit lifted, the log written to the run's file.
    for (const [name, args] of [[shippedTarget, asShipped], [terminalTarget, [...asShipped, '--log-format', 'pretty']]] as const) {
      targets.push(await startMock(name, [...args]));
      if (baselineRoot !== undefined) targets.push(await startMock(baselineName(name), [...args], 1, undefined, baselineRoot));
    }
    const mocks: [string, string[], number?][] = [
      [memoryTarget, ['--store', 'memory']],
      ['mock · memory, responses checked', ['--store', 'memory', '--validate-responses', 'on']],
      ...(stores.has('sqlite') ? ([['mock · sqlite', ['--store', `sqlite:${join(logDir, 'bench.db')}`]]] as [string, string[]][]) : []),
      ...(redis ? ([['mock · redis', ['--store', `${redis.url}/1`]], ['mock · redis, 2 replicas', ['--store', `${redis.url}/2`], 2]] as [string, string[], number][]) : []),
    ];
    for (const [name, storeArgs, replicas] of mocks) {
      const args = [...storeOnly, ...storeArgs];
      targets.push(await startMock(name, args, replicas, redis));
      // Each baseline right after its twin, on a store of its own (another SQLite file, another Redis database).
      if (baselineRoot !== undefined && !name.includes('checked')) targets.push(await startMock(baselineName(name), baselineArgs(args), replicas, redis, baselineRoot));
    }
    targets.push(await startPrism(), await startBare());
    for (const target of targets) {
      for (const operation of operationNames) rows.push(await measure(target, operation));
    }
    printTable(rows);
    if (baselineRoot !== undefined) printAgainstBaseline(rows);
    const startup = await startupOf();
    console.log(`\nMock start-up (SQLite store): ${startup.inProcessMs} ms in process (modules loaded to listening), ${startup.wallMs} ms from spawn to listening.`);
    if (creates > 0) {
      for (const target of targets.filter((candidate) => candidate.name.startsWith('mock · ') && candidate.pids.length === 1 && !candidate.name.includes('checked') && candidate.name !== shippedTarget && candidate.name !== terminalTarget)) {
        await memoryAfterCreates(target);
      }
    }
  } finally {
    await Promise.all(targets.map((target) => target.stop()));
    await redis?.stop();
    await rm(logDir, { recursive: true, force: true });
  }
}

async function measure(target: Target, operation: OperationName): Promise<Row> {
  // The connections are split between the processes that serve the target, and their results added up.
  const run = (seconds: number) =>
    Promise.all(target.urls.map((url) => autocannon({ url, connections: Math.max(1, Math.round(connections / target.urls.length)), duration: seconds, requests: [loadRequest(operation, target.customerId)] })));
  // Not measured: lets the JIT compile the hot path and lazily built validators settle, as in a long-running mock.
  await run(warmUpSeconds);
  const cpuBefore = await cpuMicrosOfAll(target);
  const results = await run(duration);
  const total = results.reduce((sum, result) => sum + result.requests.total, 0);
  const cpuUsPerRequest = ((await cpuMicrosOfAll(target)) - cpuBefore) / Math.max(1, total);
  return {
    target: target.name,
    operation,
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    cpuUsPerRequest,
    non2xx: results.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
  };
}

/** The CPU time of the processes serving the target, and of the store's server: Redis's work is part of a request's cost. */
async function cpuMicrosOfAll(target: Target): Promise<number> {
  const pids = [...target.pids, ...(target.storePid === undefined ? [] : [target.storePid])];
  return (await Promise.all(pids.map(cpuMicrosOf))).reduce((sum, micros) => sum + micros, 0);
}

function printTable(rows: Row[]): void {
  const rowOf = (name: string, operation: string) => rows.find((row) => row.target === name && row.operation === operation);
  const baseline = (name: string, operation: string) => rowOf(name, operation)?.rps ?? NaN;
  const cpuBaseline = (name: string, operation: string) => rowOf(name, operation)?.cpuUsPerRequest ?? NaN;
  console.log(`\n${connections} connections, ${duration} s per run, one run, same machine, same contract (generated/openapi.json)\n`);
  console.log(
    ['target'.padEnd(34), 'operation'.padEnd(15), 'req/s'.padStart(8), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), '÷ memory'.padStart(9), '÷ bare'.padStart(7), '× prism'.padStart(8), 'CPU µs/req'.padStart(11), 'CPU ÷ mem'.padStart(10), 'CPU ÷ bare'.padStart(11), 'non-2xx'.padStart(8)].join(' '),
  );
  for (const row of rows) {
    console.log(
      [
        row.target.padEnd(34),
        row.operation.padEnd(15),
        Math.round(row.rps).toString().padStart(8),
        row.p50.toFixed(1).padStart(7),
        row.p99.toFixed(1).padStart(7),
        (row.rps / baseline(memoryTarget, row.operation)).toFixed(2).padStart(9),
        (row.rps / baseline(bareTarget, row.operation)).toFixed(2).padStart(7),
        (row.rps / baseline(prismTarget, row.operation)).toFixed(2).padStart(8),
        row.cpuUsPerRequest.toFixed(1).padStart(11),
        (row.cpuUsPerRequest / cpuBaseline(memoryTarget, row.operation)).toFixed(2).padStart(10),
        (row.cpuUsPerRequest / cpuBaseline(bareTarget, row.operation)).toFixed(2).padStart(11),
        String(row.non2xx).padStart(8),
      ].join(' '),
    );
  }
  console.log('CPU of a Redis target includes the redis-server process.');
}

/** Each target against its baseline twin (same store, the other checkout), measured minutes apart at most. */
function printAgainstBaseline(rows: Row[]): void {
  console.log(`\nAgainst the baseline (${baselineRoot}): this version ÷ the baseline`);
  console.log(['target'.padEnd(34), 'operation'.padEnd(15), 'req/s ÷'.padStart(8), 'CPU/req ÷'.padStart(10)].join(' '));
  for (const row of rows.filter((candidate) => candidate.target.startsWith('mock · ') && !candidate.target.includes('checked'))) {
    const twin = rows.find((other) => other.target === baselineName(row.target) && other.operation === row.operation);
    if (!twin) continue;
    console.log([row.target.padEnd(34), row.operation.padEnd(15), (row.rps / twin.rps).toFixed(2).padStart(8), (row.cpuUsPerRequest / twin.cpuUsPerRequest).toFixed(2).padStart(10)].join(' '));
  }
}

/** RSS before the creates and after each quarter of them: flat quarters mean memory is bounded, not leaking. */
async function memoryAfterCreates(mock: Target): Promise<void> {
  const pid = mock.pids[0] as number;
  const samples = [await rssOf(pid)];
  const storeBefore = mock.storePid === undefined ? undefined : await rssOf(mock.storePid);
  const started = Date.now();
  let done = 0;
  let non2xx = 0;
  for (let quarter = 0; quarter < 4; quarter += 1) {
    const result = await autocannon({ url: mock.urls[0] as string, connections, amount: Math.round(creates / 4), requests: [loadRequest('createCustomer', mock.customerId)] });
    done += result.requests.total;
    non2xx += result.non2xx;
    samples.push(await rssOf(pid));
  }
  const store = mock.storePid === undefined ? '' : `; redis-server ${mb(storeBefore as number)} → ${mb(await rssOf(mock.storePid))} MiB`;
  console.log(
    `${mock.name}: RSS ${samples.map(mb).join(' → ')} MiB (before, then after each quarter of ${done} idempotent creates; ` +
      `${Math.round((Date.now() - started) / 1000)} s, ${non2xx} non-2xx)${store}.`,
  );
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

/**
 * User plus system CPU time of a process so far, in microseconds (utime and stime of /proc/<pid>/stat, in clock
 * ticks of 1/100 s). Per request, it is steadier than req/s on a shared machine: it does not count the time the
 * target waited for a core.
 */
async function cpuMicrosOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may contain blanks; utime and stime are the 14th
  // and 15th fields of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

const logDir = await mkdtemp(join(tmpdir(), 'bench-'));

/** The mock picks its own port and announces it, so no free port is guessed and raced for. */
async function launchMock(args: string[], root?: string): Promise<MockProcess> {
  return startMockProcess({ args, logDir: await mkdtemp(join(logDir, 'mock-')), ...(root === undefined ? {} : { root }) });
}

const baselineName = (name: string) => name.replace(/^mock · /, 'baseline · ');
/** A baseline's own store: another SQLite file, another Redis database. */
const baselineArgs = (args: string[]) =>
  args.map((arg) => (arg.startsWith('sqlite:') ? arg.replace(/\.db$/, '-baseline.db') : arg.startsWith('redis://') ? arg.replace(/\/(\d+)$/, (_, db: string) => `/${Number(db) + 8}`) : arg));

/** A mock run with `args` (`replicas` processes on one store), and the customer its reads fetch. */
async function startMock(name: string, args: string[], replicas = 1, redis?: RedisServer, root?: string): Promise<Target> {
  const mocks: MockProcess[] = [];
  const stop = () => Promise.all(mocks.map((mock) => mock.stop())).then(() => undefined);
  try {
    for (let n = 0; n < replicas; n += 1) {
      mocks.push(await launchMock(args, root));
    }
    const urls = mocks.map((mock) => mock.url);
    const storePid = args.some((arg) => arg.startsWith('redis://')) ? redis?.pid : undefined;
    return { name, urls, pids: mocks.map((mock) => mock.pid), stop, customerId: await createCustomerToRead(urls[0] as string, name), ...(storePid === undefined ? {} : { storePid }) };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startPrism(): Promise<Target> {
  const port = await freePort();
  const prism = await spawnServer('node_modules/.bin/prism', ['mock', '-p', String(port), '-h', '127.0.0.1', '-v', 'error', 'generated/openapi.json'], port, {
    timeoutMs: 60_000,
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
  });
  return { name: prismTarget, urls: [prism.url], pids: [prism.pid], stop: prism.stop, customerId: exampleCustomerId };
}

async function startBare(): Promise<Target> {
  const port = await freePort();
  const bare = await spawnServer(process.execPath, ['bench/bare-server.mjs', String(port)], port);
  return { name: bareTarget, urls: [bare.url], pids: [bare.pid], stop: bare.stop, customerId: exampleCustomerId };
}

/** Start-up of the mock, taken from its own start line, over three starts; the median. */
async function startupOf(): Promise<{ inProcessMs: number; wallMs: number }> {
  const samples: { inProcessMs: number; wallMs: number }[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = Date.now();
    const mock = await launchMock(['--log-level', 'info', '--store', `sqlite:${join(logDir, `startup-${i}.db`)}`]);
    samples.push({ inProcessMs: mock.startupMs ?? NaN, wallMs: Date.now() - started });
    await mock.stop();
  }
  samples.sort((a, b) => a.inProcessMs - b.inProcessMs);
  return samples[1] as { inProcessMs: number; wallMs: number };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
