/**
 * The mock without a clone: its packed tarball, run with `npx` in an empty folder, serves the API and its docs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../contract-tests/support/processes.ts';
import { buildMockPackage } from '../../mock/package/build.ts';

let folder: string;
let npx: ChildProcess;
let base: string;
let output = '';

beforeAll(async () => {
  const tarball = await buildMockPackage();
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
