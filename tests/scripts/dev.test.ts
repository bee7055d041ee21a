/**
 * `npm run dev` on a copy of the project: an edit under openapi/ is served by the running mock, which keeps its
 * data; an edit that does not bundle is refused, said so, and the last good contract keeps serving. It says which
 * store it uses, and `--start-store` shares `npm start`'s.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../contract-tests/support/processes.ts';

const root = new URL('../../', import.meta.url).pathname;
const key = `dk_test_${'D3v'.repeat(8)}`;
let project: string;
let dev: ChildProcess;
let output = '';
let base: string;
const stoppers: (() => Promise<void>)[] = [];

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; dev printed:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const summaryOfListCustomers = async () => {
  const contract = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { get: { summary: string } }> };
  return contract.paths['/v1/partner/customers']?.get.summary;
};

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'dev-'));
  for (const path of ['openapi', 'contract-changes', 'contract-model', 'scripts', 'mock', 'console', 'client', 'generated', 'package.json', 'tsconfig.json', 'CHANGELOG.md', 'redocly.yaml', 'releases', '.spectral.yaml', 'spectral']) {
    await cp(join(root, path), join(project, path), { recursive: true });
  }
  await symlink(join(root, 'node_modules'), join(project, 'node_modules'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dev = spawn(join(project, 'node_modules', '.bin', 'tsx'), [join(project, 'scripts', 'dev', 'main.ts'), '--port', String(port), '--log-format', 'json'], { cwd: project });
  dev.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  stoppers.push(() => stop(dev));
  await until('the mock', async () => ((await fetch(`${base}/_mock/health`)).ok ? true : undefined));
}, 60_000);

afterAll(async () => {
  for (const stopOne of stoppers) await stopOne();
  if (project) await rm(project, { recursive: true, force: true });
});

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const storeOf = async (url: string) => ((await (await fetch(`${url}/_mock/health`)).json()) as { payload: { store: string } }).payload.store;

it('says at start which store it uses: its own SQLite file unless told otherwise', async () => {
  const devStore = `sqlite:${join(project, '.mock-data', 'dev.db')}`;
  expect(output).toContain(`[dev] store: ${devStore} (dev's own`);
  expect(await storeOf(base)).toBe(devStore);
});

it('shares npm start\'s store with --start-store, and says so in --help', async () => {
  const { stdout: help } = await promisify(execFile)(join(project, 'node_modules', '.bin', 'tsx'), [join(project, 'scripts', 'dev', 'main.ts'), '--help'], { cwd: project });
  expect(help).toContain('--start-store');
  expect(help).toContain('sqlite:.mock-data/state.db');

  // A customer made on the mock as `npm start` runs it (its default store, in the project), which is then stopped.
  const startPort = await freePort();
  const started = spawn(process.execPath, [join(project, '.build', 'main.mjs'), '--port', String(startPort), '--log-format', 'json'], { cwd: project });
  stoppers.push(() => stop(started));
  const startUrl = `http://127.0.0.1:${startPort}`;
  await until('npm start\'s mock', async () => ((await fetch(`${startUrl}/_mock/health`)).ok ? true : undefined));
  const created = await fetch(`${startUrl}/v1/partner/customers`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': 'start-1' },
    body: JSON.stringify({ email: 'start@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' }),
  });
  expect(created.status).toBe(200);
  await stop(started);

  const port = await freePort();
  let shared = '';
  const sharing = spawn(join(project, 'node_modules', '.bin', 'tsx'), [join(project, 'scripts', 'dev', 'main.ts'), '--start-store', '--port', String(port), '--log-format', 'json'], { cwd: project });
  sharing.stdout?.on('data', (chunk: Buffer) => (shared += chunk.toString()));
  sharing.stderr?.on('data', (chunk: Buffer) => (shared += chunk.toString()));
  stoppers.push(() => stop(sharing));
  const url = `http://127.0.0.1:${port}`;
  await until('dev on npm start\'s store', async () => ((await fetch(`${url}/_mock/health`)).ok ? true : undefined), 60_000);
  const startStore = `sqlite:${join(project, '.mock-data', 'state.db')}`;
  expect(shared).toContain(`[dev] store: ${startStore} (npm start's`);
  expect(await storeOf(url)).toBe(startStore);
  const listed = (await (await fetch(`${url}/v1/partner/customers`, { headers: { authorization: key } })).json()) as { payload: { data: { email: string }[] } };
  expect(listed.payload.data.map((customer) => customer.email)).toEqual(['start@example.com']);
  await stop(sharing);
}, 120_000);

it('serves an edit of the contract, keeping the data, and keeps the last good contract on a broken edit', async () => {
  const created = await fetch(`${base}/v1/partner/customers`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json', 'idempotency-key': 'dev-1' },
    body: JSON.stringify({ email: 'dev@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' }),
  });
  expect(created.status).toBe(200);

  const file = join(project, 'openapi', 'paths', 'v1_partner_customers.yaml');
  const original = await readFile(file, 'utf8');
  await writeFile(file, original.replace('summary: List customers', 'summary: List every customer'));
  await until('the edited contract', async () => ((await summaryOfListCustomers()) === 'List every customer' ? true : undefined));
  const listed = (await (await fetch(`${base}/v1/partner/customers`, { headers: { authorization: key } })).json()) as { payload: { data: { email: string }[] } };
  expect(listed.payload.data.map((customer) => customer.email)).toEqual(['dev@example.com']);

  await writeFile(file, `${original.replace('summary: List customers', 'summary: Broken')}\nbroken: [\n`);
  await until('the refusal', async () => (output.includes('not served, the last good contract keeps serving') ? true : undefined));
  expect(await summaryOfListCustomers()).toBe('List every customer');
}, 90_000);

it('serves the docs of the contract as it is after each save, not one save behind', async () => {
  const file = join(project, 'openapi', 'paths', 'v1_partner_customers.yaml');
  // As it is in the project (the test before left it broken).
  const original = await readFile(join(root, 'openapi', 'paths', 'v1_partner_customers.yaml'), 'utf8');
  const docsSay = async (text: string) => ((await (await fetch(`${base}/docs`)).text()).includes(text) ? true : undefined);
  for (const summary of ['List the customers, first edit', 'List the customers, second edit']) {
    await writeFile(file, original.replace('summary: List customers', `summary: ${summary}`));
    await until(`the docs of "${summary}"`, () => docsSay(summary), 60_000);
  }
}, 150_000);
