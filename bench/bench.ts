/**
 * `npm run bench`: the mock against `prism mock -v error` and a bare node:http server, same machine, same
 * contract, one run, side by side. Prints req/s, p50 and p99 for getCustomer and an idempotent createCustomer
 * (a fresh Idempotency-Key per request), the ratios, the mock's start-up time, and its RSS after many creates.
 * Each measurement follows an unmeasured two-second warm-up of the same load.
 *
 *   npm run bench -- [--duration 10] [--connections 10] [--creates 1000000]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { buildMock, startMockProcess, type MockProcess } from '../contract-tests/support/mock-process.ts';
import { createCustomerToRead, exampleCustomerId, freePort, loadRequest, operationNames, spawnServer, type OperationName } from './load.ts';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, creates: { type: 'string', default: '1000000' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const creates = Number(values.creates);
const warmUpSeconds = 2;

interface Target {
  name: string;
  url: string;
  pid: number;
  stop(): Promise<void>;
  customerId: string;
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

async function main(): Promise<void> {
  await buildMock();
  // Each target is kept as soon as it runs, so that a later one failing to start still stops the earlier ones.
  const targets: Target[] = [];
  const rows: Row[] = [];
  try {
    for (const start of [() => startMock('mock', []), () => startMock('mock (response validation on)', ['--validate-responses', 'on']), startPrism, startBare]) {
      targets.push(await start());
    }
    for (const target of targets) {
      for (const operation of operationNames) rows.push(await measure(target, operation));
    }
    printTable(rows);
    const mock = targets[0] as Target;
    const startup = await startupOf();
    console.log(`\nMock start-up: ${startup.inProcessMs} ms in process (modules loaded to listening), ${startup.wallMs} ms from spawn to listening.`);
    await memoryAfterCreates(mock);
  } finally {
    await Promise.all(targets.map((target) => target.stop()));
    await rm(logDir, { recursive: true, force: true });
  }
}

async function measure(target: Target, operation: OperationName): Promise<Row> {
  const run = (seconds: number) => autocannon({ url: target.url, connections, duration: seconds, requests: [loadRequest(operation, target.customerId)] });
  // Not measured: lets the JIT compile the hot path and lazily built validators settle, as in a long-running mock.
  await run(warmUpSeconds);
  const cpuBefore = await cpuMicrosOf(target.pid);
  const result = await run(duration);
  const cpuUsPerRequest = ((await cpuMicrosOf(target.pid)) - cpuBefore) / Math.max(1, result.requests.total);
  return { target: target.name, operation, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUsPerRequest, non2xx: result.non2xx + result.errors };
}

function printTable(rows: Row[]): void {
  const rowOf = (name: string, operation: string) => rows.find((row) => row.target === name && row.operation === operation);
  const baseline = (name: string, operation: string) => rowOf(name, operation)?.rps ?? NaN;
  const cpuBaseline = (name: string, operation: string) => rowOf(name, operation)?.cpuUsPerRequest ?? NaN;
  console.log(`\n${connections} connections, ${duration} s per run, one run, same machine, same contract (generated/openapi.json)\n`);
  console.log(['target'.padEnd(32), 'operation'.padEnd(15), 'req/s'.padStart(9), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7), '× prism'.padStart(8), '÷ bare'.padStart(7), 'CPU µs/req'.padStart(11), 'CPU ÷ bare'.padStart(11), 'non-2xx'.padStart(8)].join(' '));
  for (const row of rows) {
    console.log(
      [
        row.target.padEnd(32),
        row.operation.padEnd(15),
        Math.round(row.rps).toString().padStart(9),
        row.p50.toFixed(1).padStart(7),
        row.p99.toFixed(1).padStart(7),
        (row.rps / baseline('prism mock -v error', row.operation)).toFixed(2).padStart(8),
        (row.rps / baseline('bare node:http', row.operation)).toFixed(2).padStart(7),
        row.cpuUsPerRequest.toFixed(1).padStart(11),
        (row.cpuUsPerRequest / cpuBaseline('bare node:http', row.operation)).toFixed(2).padStart(11),
        String(row.non2xx).padStart(8),
      ].join(' '),
    );
  }
}

async function memoryAfterCreates(mock: Target): Promise<void> {
  const before = await rssOf(mock.pid);
  const started = Date.now();
  const result = await autocannon({ url: mock.url, connections, amount: creates, requests: [loadRequest('createCustomer', mock.customerId)] });
  const after = await rssOf(mock.pid);
  console.log(
    `Mock RSS: ${mb(before)} MiB before, ${mb(after)} MiB after ${result.requests.total} idempotent creates ` +
      `(${Math.round((Date.now() - started) / 1000)} s, ${result.non2xx} non-2xx); idempotency records are capped (--idempotency-max-records, default 100000).`,
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
async function launchMock(args: string[]): Promise<MockProcess> {
  return startMockProcess({ args, logDir: await mkdtemp(join(logDir, 'mock-')) });
}

async function startMock(name: string, extra: string[]): Promise<Target> {
  const mock = await launchMock(['--log-level', 'error', '--rate-limit', '500000', '--validate-responses', 'off', '--formation-timeline', 'manual', ...extra]);
  try {
    return { name, url: mock.url, pid: mock.pid, stop: () => mock.stop(), customerId: await createCustomerToRead(mock.url, name) };
  } catch (error) {
    await mock.stop();
    throw error;
  }
}

async function startPrism(): Promise<Target> {
  const port = await freePort();
  const prism = await spawnServer('node_modules/.bin/prism', ['mock', '-p', String(port), '-h', '127.0.0.1', '-v', 'error', 'generated/openapi.json'], port, {
    timeoutMs: 60_000,
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
  });
  return { name: 'prism mock -v error', ...prism, customerId: exampleCustomerId };
}

async function startBare(): Promise<Target> {
  const port = await freePort();
  return { name: 'bare node:http', ...(await spawnServer(process.execPath, ['bench/bare-server.mjs', String(port)], port)), customerId: exampleCustomerId };
}

/** Start-up of the mock, taken from its own start line, over three starts; the median. */
async function startupOf(): Promise<{ inProcessMs: number; wallMs: number }> {
  const samples: { inProcessMs: number; wallMs: number }[] = [];
  for (let i = 0; i < 3; i += 1) {
    const started = Date.now();
    const mock = await launchMock(['--log-level', 'info']);
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
