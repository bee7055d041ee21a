/**
 * The mock without a clone: its packed tarball, run with `npx` in an empty folder, serves the API and its docs; it
 * carries a README, its help speaks of npx, and on a Node too old for it, it says how to get one that is not.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { freePort } from '../../contract-tests/support/processes.ts';
import { startReceiver, receiverSecret } from './receiver-grader/support/receivers.ts';

const run = promisify(execFile);
let folder: string;
let tarball: string;
let npx: ChildProcess;
let base: string;
let output = '';

beforeAll(async () => {
  tarball = inject('mockPackage');
  folder = await mkdtemp(join(tmpdir(), 'npx-mock-'));
  await copyFile(tarball, join(folder, basename(tarball)));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Its own process group, so that stopping it stops the mock npx started too.
  npx = spawn('npx', ['--yes', `./${basename(tarball)}`, '--port', String(port), '--log-format', 'json'], { cwd: folder, detached: true });
  npx.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  npx.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 240_000;
  while (!(await fetch(`${base}/_mock/health`).then((response) => response.ok).catch(() => false))) {
    if (Date.now() > deadline || npx.exitCode !== null) throw new Error(`the mock did not start with npx:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}, 300_000);

afterAll(async () => {
  if (npx?.pid !== undefined && npx.exitCode === null) {
    const exited = new Promise((resolve) => npx.once('exit', resolve));
    process.kill(-npx.pid, 'SIGTERM');
    await exited;
  }
  if (folder) await rm(folder, { recursive: true, force: true });
});

it('serves the API, its docs and its contract from an empty folder', async () => {
  const created = await fetch(`${base}/v1/partner/customers`, {
    method: 'POST',
    headers: { authorization: `dk_test_${'N'.repeat(24)}`, 'content-type': 'application/json', 'idempotency-key': 'npx-1' },
    body: JSON.stringify({ email: 'npx@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' }),
  });
  expect(created.status).toBe(200);
  const docs = await fetch(`${base}/docs`);
  expect([docs.status, docs.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  expect(((await (await fetch(`${base}/openapi.json`)).json()) as { info: { title: string } }).info.title).toBe('Partner Formation API');
  expect((await fetch(`${base}/CHANGELOG.md`)).status).toBe(200);
});

/** The package's files as the tarball holds them, unpacked (not installed: nothing in it runs from there). */
async function unpacked(): Promise<string> {
  const into = join(folder, 'unpacked');
  await mkdir(into, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', into]);
  return join(into, 'package');
}

it('carries a README that says how to run it and where its options are', async () => {
  const readme = await readFile(join(await unpacked(), 'README.md'), 'utf8');
  expect(readme).toContain('npx ./partner-formation-mock-');
  expect(readme).toContain('--help');
  expect(readme).toMatch(/Node(\.js)? 22\.13/);
});

it('speaks of npx, not npm start, in its --help, and names its second command', async () => {
  const { stdout } = await run('npx', ['--yes', `./${basename(tarball)}`, '--help'], { cwd: folder });
  expect(stdout).toContain('Usage: npx @partner-formation/mock [options]');
  expect(stdout).toContain(`npx ./${basename(tarball)}`);
  expect(stdout).not.toContain('npm start');
  expect(stdout).toContain('   or: npx @partner-formation/mock grade-receiver URL --secret whsec_…');
}, 120_000);

it('on a Node older than its engines, says which it needs and how to run it on one, naming nothing of a clone', async () => {
  const pkg = await unpacked();
  const manifest = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
  // Node 20 as process.versions says it, before anything of the package loads: what the package reads.
  const asNode20 = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.11.1"})';
  const refused = await run(process.execPath, ['--import', asNode20, join(pkg, 'bin', 'partner-formation-mock.mjs'), '--port', '0'], { cwd: folder }).then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(refused?.code).toBe(1);
  expect(refused?.stdout).toBe('');
  const message = refused?.stderr ?? '';
  expect(message).toContain('Node 20.11.1');
  expect(message).toContain(manifest.engines.node);
  expect(message).toContain(`npx -p node@24 -p ./${basename(tarball)} partner-formation-mock`);
  expect(message).toMatch(/nvm install 24/);
  expect(message).not.toContain('use-node');
  expect(message).not.toMatch(/node:sqlite|ERR_|at .*\.mjs/);
});

it('names no file of a clone (.ci/use-node) in anything it prints', async () => {
  const pkg = await unpacked();
  const files = (await readdir(pkg, { recursive: true })).filter((file) => /\.(mjs|js|md)$/.test(file) && !file.startsWith('generated'));
  for (const file of files) expect(await readFile(join(pkg, file), 'utf8'), file).not.toContain('.ci/use-node');
});

it("logs readable lines in the terminal's format, through its own pino-pretty (formatted in a worker thread)", async () => {
  const port = await freePort();
  const pretty = spawn('npx', ['--yes', `./${basename(tarball)}`, '--port', String(port), '--log-format', 'pretty', '--store', 'memory'], { cwd: folder, detached: true });
  let printed = '';
  pretty.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  pretty.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  try {
    const deadline = Date.now() + 120_000;
    while (!/listening on/.test(printed) && Date.now() < deadline && pretty.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(printed).toMatch(/\] INFO: Partner Formation API mock \(sandbox\) listening on http:\/\/localhost:\d+ \(console: http:\/\/localhost:\d+\/_mock\/console\)/);
  } finally {
    if (pretty.pid !== undefined && pretty.exitCode === null) {
      const exited = new Promise((resolve) => pretty.once('exit', resolve));
      process.kill(-pretty.pid, 'SIGTERM');
      await exited;
    }
  }
}, 150_000);

it('grades a webhook receiver with its second command, grade-receiver, as a clone\'s npm run grade:receiver does', async () => {
  const { stdout: help } = await run('npx', ['--yes', `./${basename(tarball)}`, 'grade-receiver', '--help'], { cwd: folder });
  expect(help).toContain('Usage: npx @partner-formation/mock grade-receiver URL --secret whsec_…');
  expect(help).not.toContain('npm run');
  const [good, forgiving] = await Promise.all([startReceiver('none'), startReceiver('skips-verification')]);
  try {
    const passed = await run('npx', ['--yes', `./${basename(tarball)}`, 'grade-receiver', good.url, '--probe', good.probeUrl, '--format', 'junit'], { cwd: folder, env: { ...process.env, WEBHOOK_SECRET: receiverSecret } });
    expect(passed.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="[^"]+" tests="\d+" failures="0" skipped="0"/);
    const failed = await run('npx', ['--yes', `./${basename(tarball)}`, 'grade-receiver', forgiving.url, '--secret', receiverSecret, '--only', 'signatures'], { cwd: folder }).catch((error: { code: number; stdout: string }) => error);
    expect((failed as { code?: number }).code).toBe(1);
    expect(failed.stdout).toContain('FAILED: 0 passed, 6 failed');
  } finally {
    await Promise.all([good.close(), forgiving.close()]);
  }
}, 120_000);
