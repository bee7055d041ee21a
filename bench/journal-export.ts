/**
 * `npm run bench:journal-export`: what `GET /_mock/requests/export` costs the other requests. The built mock
 * (memory store, the journal's default 16 MiB) is filled with creates whose bodies are the dearest text to mask
 * (runs of escaped backslashes and keys, about 19 KB each, from ten partners), then the whole journal is exported
 * once, and four times at once, while a health check is sent every 20 ms: printed are the time to each export, its
 * size, the longest a health check waited meanwhile, and the mock's peak resident set (VmHWM).
 * `--baseline DIR` runs another checkout's mock (a `git worktree` of the version before) the same way, side by side
 * in one run. A benchmark, not a test: the numbers are read, not asserted.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildMock, startMockProcess, type MockProcess } from '../mock/launch/mock-process.ts';

const usage = `Usage: npm run bench:journal-export -- [--baseline DIR] [--requests N]

Fills the journal of the mock built from this checkout with escape-laden creates, then times exporting it, once
and four at once, and the longest wait of a health check sent every 20 ms meanwhile.

  --baseline DIR   also run the mock of another checkout of this project, side by side
  --requests N     creates sent before exporting (default 3000: about the default 16 MiB journal)
  --help           this text`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, requests: { type: 'string', default: '3000' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 1) throw new Error(`--requests takes a whole number, got ${values.requests}`);

const body = JSON.stringify({ firstName: 'e'.repeat(3000), note: 'dk_test_Leak00000000000000000011 '.repeat(300), more: '\\'.repeat(3000) });

async function fill(url: string): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < requests) {
      sent += 1;
      const key = `dk_test_Fill${String(sent % 10).padStart(20, '0')}`;
      const answer = await fetch(`${url}/v1/partner/customers`, { method: 'POST', headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body });
      await answer.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

interface Exported {
  ms: number;
  mib: number;
  status: number;
}

async function exportOnce(url: string): Promise<Exported> {
  const start = performance.now();
  const answer = await fetch(`${url}/_mock/requests/export`);
  const bytes = (await answer.arrayBuffer()).byteLength;
  return { ms: performance.now() - start, mib: bytes / 1048576, status: answer.status };
}

/** The exports `count` at once, and the longest a health check sent every 20 ms waited while they ran. */
async function exports(url: string, count: number): Promise<{ exported: Exported[]; healthMaxMs: number }> {
  let running = true;
  let healthMaxMs = 0;
  const health = (async () => {
    while (running) {
      const start = performance.now();
      await (await fetch(`${url}/_mock/health`)).arrayBuffer();
      healthMaxMs = Math.max(healthMaxMs, performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const exported = await Promise.all(Array.from({ length: count }, () => exportOnce(url)));
  running = false;
  await health;
  return { exported, healthMaxMs };
}

async function peakMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function measure(name: string, root: string | undefined): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'journal-export-'));
  let mock: MockProcess | undefined;
  try {
    mock = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '500000', '--log-level', 'error'], logDir: dir, ...(root === undefined ? {} : { root }) });
    const filling = performance.now();
    await fill(mock.url);
    const filledMs = performance.now() - filling;
    const rows = [`${name.padEnd(10)}  filled with ${requests} creates in ${(filledMs / 1000).toFixed(1)} s (${(filledMs / requests * 8).toFixed(1)} ms each, 8 at a time)`];
    for (const count of [1, 4]) {
      const { exported, healthMaxMs } = await exports(mock.url, count);
      const times = exported.map((one) => `${(one.ms / 1000).toFixed(1)} s`).join(', ');
      rows.push([name.padEnd(10), `${count} at once`.padEnd(10), `${exported.map((one) => one.status).join(',')}`.padEnd(16), `${exported[0]?.mib.toFixed(1)} MiB`.padStart(9), times.padEnd(26), `${healthMaxMs.toFixed(0)} ms`.padStart(9)].join('  '));
    }
    rows.push(`${name.padEnd(10)}  peak resident set ${(await peakMiB(mock.pid)).toFixed(0)} MiB`);
    return rows;
  } finally {
    await mock?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await buildMock();
if (values.baseline !== undefined) await buildMock({ root: values.baseline });
console.log(['mock'.padEnd(10), 'exports'.padEnd(10), 'status'.padEnd(16), 'size'.padStart(9), 'time to each'.padEnd(26), 'health max'.padStart(9)].join('  '));
for (const line of await measure('this', undefined)) console.log(line);
if (values.baseline !== undefined) {
  for (const line of await measure('baseline', values.baseline)) console.log(line);
  console.log(`\nbaseline: ${values.baseline}`);
}
