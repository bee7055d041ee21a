/**
 * `npm run bench:start-up`: how long `npm start` takes from the command to the mock's first answer, once built, as a
 * person runs it: npm, the launcher that picks a supported Node, the build's check, the mock's own start. Each round
 * starts `npm start -- --port P` in a checkout (its store a fresh SQLite file, the default kind), asks
 * `/_mock/health` every 10 ms until it answers 200, and stops it; the medians of the wall-clock time and of the CPU
 * time of the process tree (from /proc, which a busy machine does not inflate as it does wall time) are printed.
 * `--baseline DIR` runs another checkout's `npm start` the same way, the rounds alternating, side by side in one run.
 * A benchmark, not a test: the numbers are read, not asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const usage = `Usage: npm run bench:start-up -- [--baseline DIR] [--rounds N]

Times npm start, from the command to the mock's first answer, once built, in this checkout (and another).

  --baseline DIR   also time the npm start of another checkout of this project, rounds alternating
  --rounds N       starts per checkout (default 7); the median is printed
  --help           this text`;

const { values } = parseArgs({ options: { baseline: { type: 'string' }, rounds: { type: 'string', default: '7' }, help: { type: 'boolean' } } });
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds takes a whole number of starts, got ${values.rounds}`);
const checkouts = [{ name: 'this version', root: resolve('.') }, ...(values.baseline ? [{ name: 'before', root: resolve(values.baseline) }] : [])];
for (const { root } of checkouts) if (!existsSync(join(root, 'package.json')) || !existsSync(join(root, 'node_modules'))) throw new Error(`${root} is not an installed checkout of this project (run npm ci there)`);

/** The CPU time of a process and its descendants, in ms (utime and stime of stat(5), in ticks of 10 ms). */
async function treeCpuMs(pid: number): Promise<number> {
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.split(') ')[1]?.split(' ');
    if (!fields) continue;
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    // Its own time and that of its children it has reaped (a build that ran and ended).
    own.set(Number(entry), (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10);
  }
  const total = (id: number): number => (own.get(id) ?? 0) + (children.get(id) ?? []).reduce((sum, child) => sum + total(child), 0);
  return total(pid);
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}

async function firstAnswer(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}) before answering`);
    const ok = await fetch(`http://127.0.0.1:${port}/_mock/health`).then((response) => response.ok, () => false);
    if (ok) return;
    await new Promise((wait) => setTimeout(wait, 10));
  }
}

/** One start: the wall-clock time to the first answer, and the CPU its processes used by then. */
async function oneStart(root: string): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'bench-start-'));
  const started = performance.now();
  const child = spawn('npm', ['start', '--', '--port', String(port), '--store', `sqlite:${join(dir, 'state.db')}`, '--log-level', 'warn'], { cwd: root, env: asAShellHasIt, stdio: 'ignore', detached: true });
  try {
    await firstAnswer(port, child);
    const ms = performance.now() - started;
    return { ms, cpuMs: await treeCpuMs(child.pid as number) };
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await new Promise((done) => (child.exitCode === null ? child.once('exit', done) : done(undefined)));
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The environment of a person's shell: this script runs on the pinned Node (npm run puts it, and the kit's tools,
 * first on PATH); npm start is timed as it is typed, on whatever Node the machine has, the launcher included.
 */
const asAShellHasIt = { ...process.env, PATH: (process.env.PATH ?? '').split(':').filter((entry) => !entry.includes(join('.ci', 'node')) && !entry.endsWith(join('node_modules', '.bin'))).join(':') };

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] as number;

// One start each first, unmeasured: what a first start builds is not what this measures.
for (const { root } of checkouts) await oneStart(root);
const results = new Map(checkouts.map(({ name }) => [name, [] as { ms: number; cpuMs: number }[]]));
for (let round = 0; round < rounds; round += 1) {
  for (const { name, root } of checkouts) results.get(name)?.push(await oneStart(root));
}
console.log(`npm start to the first answer, once built: median of ${rounds} starts (load average ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')})`);
console.log('| checkout | to the first answer | CPU by then | each start (ms) |');
console.log('|---|---:|---:|---|');
for (const [name, starts] of results) {
  console.log(`| ${name} | ${Math.round(median(starts.map((start) => start.ms)))} ms | ${Math.round(median(starts.map((start) => start.cpuMs)))} ms | ${starts.map((start) => Math.round(start.ms)).join(', ')} |`);
}
