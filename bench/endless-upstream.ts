/**
 * `npm run bench:endless-upstream`: the memory of the mock as a proxy (`--upstream`) while CLIENTS (4) clients ask
 * through it, request after request for DURATION (20) seconds, of an upstream that answers every request with a body
 * that never ends. The proxy as `npm start -- --upstream URL` runs it (its `--upstream-timeout` and
 * `--upstream-max-body` left to their defaults); with `--baseline DIR`, the mock of another checkout too, right after,
 * printed side by side.
 *
 * Prints the proxy's resident set (VmRSS, from /proc) each second, then its peak (VmHWM), how many bytes the upstream
 * handed over, and how the requests were answered. A benchmark, not a test: the numbers are read, not asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildMock, startMockProcess } from '../mock/launch/mock-process.ts';
import { memoryOf } from './process-memory.ts';
import { startEndlessUpstream } from '../tests/mock/support/endless-upstream.ts';

const usage = `Usage: npm run bench:endless-upstream -- [--baseline DIR]

  --baseline DIR   also measure the mock of another checkout (built there), right after this one's
Environment: CLIENTS (default 4) clients asking at once, DURATION (default 20) seconds.`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, help: { type: 'boolean', default: false } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const clients = Number(process.env.CLIENTS ?? 4);
const durationS = Number(process.env.DURATION ?? 20);
const key = `dk_test_${'a'.repeat(24)}`;
const mib = 1024 * 1024;

interface Run {
  name: string;
  /** VmRSS each second, in MiB, from the first request. */
  rss: number[];
  peakMiB: number;
  upstreamMiB: number;
  answers: Map<string, number>;
}

/** One GET through the proxy; resolves with its status, or `unanswered` when the run ended first. */
function ask(proxyUrl: URL, stop: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const sent = request({ host: proxyUrl.hostname, port: proxyUrl.port, path: '/v1/partner/customers', headers: { authorization: key }, signal: stop }, (response) => {
      response.resume();
      response.on('end', () => resolve(String(response.statusCode)));
      response.on('error', () => resolve('unanswered'));
    });
    sent.on('error', () => resolve(stop.aborted ? 'unanswered' : 'error'));
    sent.end();
  });
}

async function measure(name: string, root?: string): Promise<Run> {
  const upstream = await startEndlessUpstream();
  const dir = await mkdtemp(join(tmpdir(), 'endless-upstream-'));
  const proxy = await startMockProcess({ args: ['--store', 'memory', '--rate-limit', '500000', '--log-level', 'error', '--upstream', upstream.url], logDir: dir, ...(root === undefined ? {} : { root }) });
  const stop = new AbortController();
  const answers = new Map<string, number>();
  try {
    const proxyUrl = new URL(proxy.url);
    const asking = Array.from({ length: clients }, async () => {
      while (!stop.signal.aborted) {
        const status = await ask(proxyUrl, stop.signal);
        answers.set(status, (answers.get(status) ?? 0) + 1);
      }
    });
    const rss: number[] = [(await memoryOf(proxy.pid)).rss];
    for (let second = 1; second <= durationS; second += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      rss.push((await memoryOf(proxy.pid)).rss);
    }
    const { peak } = await memoryOf(proxy.pid);
    stop.abort();
    await Promise.all(asking);
    const upstreamMiB = upstream.answers.reduce((sum, answer) => sum + answer.written, 0) / mib;
    return { name, rss, peakMiB: peak, upstreamMiB, answers };
  } finally {
    stop.abort();
    await proxy.stop();
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await buildMock();
if (values.baseline !== undefined) await buildMock({ root: values.baseline });
const runs = [await measure('this checkout')];
if (values.baseline !== undefined) runs.push(await measure(`baseline (${values.baseline})`, values.baseline));

console.log(`\nResident set of the proxy (MiB) while ${clients} clients ask through it, request after request, of an upstream that never stops sending (--store memory):\n`);
console.log(`| s | ${runs.map((run) => run.name).join(' | ')} |`);
console.log(`|---|${runs.map(() => '---:').join('|')}|`);
for (let second = 0; second <= durationS; second += 1) console.log(`| ${second} | ${runs.map((run) => (run.rss[second] ?? 0).toFixed(0)).join(' | ')} |`);
console.log(`| peak (VmHWM) | ${runs.map((run) => run.peakMiB.toFixed(0)).join(' | ')} |`);
console.log(`| upstream sent (MiB) | ${runs.map((run) => run.upstreamMiB.toFixed(0)).join(' | ')} |`);
const answered = (run: Run) => [...run.answers].sort().map(([status, count]) => `${count}× ${status}`).join(', ');
console.log(`| answers | ${runs.map(answered).join(' | ')} |`);
