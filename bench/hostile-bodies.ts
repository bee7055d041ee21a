/**
 * `npm run bench:hostile-bodies`: how long the mock takes to refuse bodies full of errors, and how long another
 * partner's request waits meanwhile. For each size (10 KB, 100 KB, 1 MiB) and shape of body, five creates are sent
 * one after another, each with a health check right behind it on another connection; the median time to each
 * answer is printed, with the statuses, and the mock's CPU time per body (from /proc, which a busy machine does not
 * inflate as it does wall time).
 * `--baseline DIR` runs another checkout's mock (say a `git worktree` of the version before) the same way, side by
 * side in one run. A benchmark, not a test: the numbers are read, not asserted.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildMock, startMockProcess, type MockProcess } from '../mock/launch/mock-process.ts';

const usage = `Usage: npm run bench:hostile-bodies -- [--baseline DIR] [--timeout SECONDS]

Times the refusal of bodies full of errors (10 KB, 100 KB, 1 MiB) by the mock built from this checkout, and the
wait of a health check sent right behind each.

  --baseline DIR     also run the mock of another checkout of this project, side by side
  --timeout SECONDS  how long to wait for one answer before giving up on it (default 120)
  --help             this text`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, timeout: { type: 'string', default: '120' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const timeoutMs = Number(values.timeout) * 1000;
/** Bodies of each size and shape sent one after the other; the median is printed. */
const rounds = 5;
if (!(timeoutMs > 0)) throw new Error(`--timeout takes a number of seconds, got ${values.timeout}`);

const key = `dk_test_${'a'.repeat(24)}`;
const sizes = [{ name: '10 KB', bytes: 10_000 }, { name: '100 KB', bytes: 100_000 }, { name: '1 MiB', bytes: 1024 * 1024 - 512 }];

/** A body of about `bytes` whose every part is an error: made of repeated pieces between a head and a tail. */
interface Shape {
  name: string;
  path: string;
  body(bytes: number): string;
}

const repeat = (head: string, piece: (index: number) => string, tail: string, bytes: number): string => {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let index = 0; size + piece(index).length + 1 <= bytes; index += 1) {
    parts.push(piece(index));
    size += piece(index).length + 1;
  }
  return `${head}${parts.join(',')}${tail}`;
};

const shapes: Shape[] = [
  { name: 'empty members', path: '/v1/partner/companies', body: (bytes) => repeat('{"entityType":"LLC","members":[', () => '{}', ']}', bytes) },
  { name: 'numbers as name options', path: '/v1/partner/companies', body: (bytes) => repeat('{"nameOptions":[', () => '1', ']}', bytes) },
  { name: 'unknown properties', path: '/v1/partner/customers', body: (bytes) => repeat('{', (index) => `"p${index}":0`, '}', bytes) },
];

interface Timed {
  ms: number;
  status: string;
}

async function timed(url: string, init: RequestInit): Promise<Timed> {
  const start = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { ms: performance.now() - start, status: String(response.status) };
  } catch (error) {
    return { ms: performance.now() - start, status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'reset' };
  }
}

/** The CPU time a process has used, in ms (user and system, from /proc: steady on a busy machine, where wall time is not). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const send = (url: string, shape: Shape, body: string) =>
  timed(`${url}${shape.path}`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body,
  });

/**
 * Each body on a mock of its own, warmed up by a small body of the same shape: a version that takes minutes over
 * one body would otherwise still be busy with it when the next is timed.
 */
async function measure(name: string, root: string | undefined): Promise<string[]> {
  const rows: string[] = [];
  for (const shape of shapes) {
    for (const size of sizes) {
      const dir = await mkdtemp(join(tmpdir(), 'hostile-bodies-'));
      let mock: MockProcess | undefined;
      try {
        mock = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '500000', '--log-level', 'error'], logDir: dir, ...(root === undefined ? {} : { root }) });
        await send(mock.url, shape, shape.body(1000));
        const refusals: Timed[] = [];
        const waits: Timed[] = [];
        const cpuBefore = await cpuMs(mock.pid);
        for (let round = 0; round < rounds; round += 1) {
          const create = send(mock.url, shape, shape.body(size.bytes));
          // Sent once the create is under way: what another partner waits while this one is refused.
          await new Promise((resolve) => setTimeout(resolve, 20));
          const [refused, waited] = await Promise.all([create, timed(`${mock.url}/_mock/health`, {})]);
          refusals.push(refused);
          waits.push(waited);
          if (refused.status === 'timeout') break;
        }
        const cpuEach = (await cpuMs(mock.pid) - cpuBefore) / refusals.length;
        const median = (list: Timed[]) => [...list].sort((a, b) => a.ms - b.ms)[Math.floor(list.length / 2)] as Timed;
        const statuses = [...new Set(refusals.map((refusal) => refusal.status))].join(',');
        rows.push(
          [name.padEnd(10), shape.name.padEnd(24), size.name.padStart(7), `${median(refusals).ms.toFixed(1)} ms`.padStart(12), `${cpuEach.toFixed(0)} ms`.padStart(10), statuses.padStart(8), `${median(waits).ms.toFixed(1)} ms`.padStart(12)].join('  '),
        );
      } finally {
        await mock?.stop();
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  return rows;
}

await buildMock();
if (values.baseline !== undefined) await buildMock({ root: values.baseline });
console.log(['mock'.padEnd(10), 'body'.padEnd(24), 'size'.padStart(7), 'refused in'.padStart(12), 'CPU each'.padStart(10), 'status'.padStart(8), 'health wait'.padStart(12)].join('  '));
for (const line of await measure('this', undefined)) console.log(line);
if (values.baseline !== undefined) {
  for (const line of await measure('baseline', values.baseline)) console.log(line);
  console.log(`\nbaseline: ${values.baseline}`);
}
