/**
 * `npm run bench:idle-streams`: the memory of the mock while clients hold request streams (`GET
 * /_mock/requests/stream`, server-sent events) open and never read them. The mock as `npm start` runs it (SQLite, its
 * stream bounds as shipped; the rate limit lifted, the log quiet); with `--baseline DIR`, the mock of another checkout
 * too, right after, printed side by side.
 *
 * 1. STREAMS (4000) streams are asked for over KEYS (500) fresh keys, eight a key (the most one partner may hold),
 *    key after key, each read up to its head and then never again;
 * 2. the first TRAFFIC_KEYS (4) keys send REQUESTS (8000) requests each, with long paths (an entry of about 760
 *    bytes), so that each of their streams has more to send than the sockets between hold (about 4 MB on loopback,
 *    where the system lets a socket's send buffer grow that far): the rest waits in the mock;
 * 3. nothing happens for WAIT (45) seconds: a stream whose client takes nothing may be closed meanwhile.
 *
 * Prints the mock's resident set (VmRSS, from /proc) after each phase and its peak (VmHWM), how the streams were
 * answered, how many connections the mock holds open (its sockets, from /proc), and the bytes its connections have
 * waiting in the system's send buffers (`ss`), which the resident set does not show. A benchmark, not a test: the
 * numbers are read, not asserted.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildMock, startMockProcess } from '../mock/launch/mock-process.ts';
import { memoryOf } from './process-memory.ts';

const usage = `Usage: npm run bench:idle-streams -- [--baseline DIR]

  --baseline DIR   also measure the mock of another checkout (built there), right after this one's
Environment: STREAMS (default 4000) streams over KEYS (default 500) keys; TRAFFIC_KEYS (default 4) keys send
REQUESTS (default 8000) requests each; then WAIT (default 45) seconds.`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, help: { type: 'boolean', default: false } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const streams = Number(process.env.STREAMS ?? 4000);
const keyCount = Number(process.env.KEYS ?? 500);
const trafficKeys = Math.min(keyCount, Number(process.env.TRAFFIC_KEYS ?? 4));
const requestsPerKey = Number(process.env.REQUESTS ?? 8000);
const waitS = Number(process.env.WAIT ?? 45);
const keys = Array.from({ length: keyCount }, (_, n) => `dk_test_idle${String(n).padStart(20, '0')}`);
/** A path as long as the journal keeps one (512 characters): each entry about 760 bytes of its stream. */
const longPath = `/v1/partner/customers/cus_${'x'.repeat(480)}`;

interface Run {
  name: string;
  answers: Map<string, number>;
  /** MiB at each phase's end. */
  rss: { before: number; open: number; traffic: number; waited: number };
  peakMiB: number;
  /** The mock's sockets after the streams were asked for, and after the wait. */
  sockets: { open: number; waited: number };
  /** MiB the mock's connections have waiting in the system's send buffers, after the requests and after the wait. */
  unsent: { traffic: number; waited: number };
}

/** The sockets the process holds open: its listening socket, and one per connection. */
async function socketsOf(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith('socket:')).length;
}

/** The bytes the connections of the server at `port` have sent into the system's buffers and the client has not taken (Send-Q). */
function unsentMiB(port: string): number {
  const lines = execFileSync('ss', ['-tnH', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' }).split('\n');
  return lines.reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[1] ?? 0), 0) / (1024 * 1024);
}

/** Asks for a stream, reads its head (its status), then reads nothing more: a client that never reads. */
function openStream(url: URL, key: string, answers: Map<string, number>): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`GET /_mock/requests/stream HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${key}\r\n\r\n`);
    });
    const count = (status: string) => answers.set(status, (answers.get(status) ?? 0) + 1);
    socket.once('data', (data: Buffer) => {
      count(/^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 'other');
      socket.pause();
      resolve(socket);
    });
    socket.once('error', () => {
      count('error');
      resolve(socket);
    });
  });
}

/** `total` GETs with a long path, `concurrency` at a time, each with one of `from` keys in turn. */
async function sendTraffic(url: URL, from: readonly string[], total: number, concurrency = 32): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const one = (key: string) =>
    new Promise<void>((resolve) => {
      const sent = request({ host: url.hostname, port: url.port, path: longPath, agent, headers: { authorization: key } }, (response) => {
        response.resume();
        response.on('end', resolve);
      });
      sent.on('error', () => resolve());
      sent.end();
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const n = next++;
        await one(from[n % from.length] as string);
      }
    }),
  );
  agent.destroy();
}

async function measure(name: string, root?: string): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'idle-streams-'));
  const mock = await startMockProcess({ args: ['--rate-limit', '500000', '--log-level', 'error'], logDir: dir, ...(root === undefined ? {} : { root }) });
  const held: Socket[] = [];
  try {
    const url = new URL(mock.url);
    const before = (await memoryOf(mock.pid)).rss;
    const answers = new Map<string, number>();
    for (let first = 0; first < streams; first += 100) {
      // Key after key, eight each: the first keys hold as many streams as a partner may.
      const batch = Array.from({ length: Math.min(100, streams - first) }, (_, n) => openStream(url, keys[Math.floor((first + n) / 8) % keyCount] as string, answers));
      held.push(...(await Promise.all(batch)));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const open = (await memoryOf(mock.pid)).rss;
    const socketsOpen = await socketsOf(mock.pid);
    await sendTraffic(url, keys.slice(0, trafficKeys), trafficKeys * requestsPerKey);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const traffic = (await memoryOf(mock.pid)).rss;
    const unsentTraffic = unsentMiB(url.port);
    await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
    const { rss: waited, peak } = await memoryOf(mock.pid);
    const socketsWaited = await socketsOf(mock.pid);
    return { name, answers, rss: { before, open, traffic, waited }, peakMiB: peak, sockets: { open: socketsOpen, waited: socketsWaited }, unsent: { traffic: unsentTraffic, waited: unsentMiB(url.port) } };
  } finally {
    for (const socket of held) socket.destroy();
    await mock.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await buildMock();
if (values.baseline !== undefined) await buildMock({ root: values.baseline });
const runs = [await measure('this checkout')];
if (values.baseline !== undefined) runs.push(await measure(`baseline (${values.baseline})`, values.baseline));

console.log(`\n${streams} request streams asked for over ${keyCount} keys and never read; then ${trafficKeys * requestsPerKey} requests from ${trafficKeys} of the keys; then ${waitS} s (resident set in MiB):\n`);
console.log(`| | ${runs.map((run) => run.name).join(' | ')} |`);
console.log(`|---|${runs.map(() => '---:').join('|')}|`);
const row = (label: string, cell: (run: Run) => string) => console.log(`| ${label} | ${runs.map(cell).join(' | ')} |`);
row('streams answered', (run) => [...run.answers].sort().map(([status, count]) => `${count}× ${status}`).join(', '));
row('before', (run) => run.rss.before.toFixed(0));
row('streams open', (run) => run.rss.open.toFixed(0));
row('after the requests', (run) => run.rss.traffic.toFixed(0));
row(`after ${waitS} s`, (run) => run.rss.waited.toFixed(0));
row('peak (VmHWM)', (run) => run.peakMiB.toFixed(0));
row("the mock's sockets, streams open", (run) => String(run.sockets.open));
row(`the mock's sockets after ${waitS} s`, (run) => String(run.sockets.waited));
row('unsent in the system\'s buffers after the requests (MiB)', (run) => run.unsent.traffic.toFixed(0));
row(`unsent in the system's buffers after ${waitS} s (MiB)`, (run) => run.unsent.waited.toFixed(0));
