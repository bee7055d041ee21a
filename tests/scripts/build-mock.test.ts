/**
 * `node scripts/build-mock.mjs --if-changed`, as `npm start`, the tests' launcher and `npm run dev` build the mock:
 * on a copy of what the bundle is built from, it builds when there is no build, not again while nothing changed, and
 * again once a file the bundle read changes; it refuses `--outdir` and `--entry` beside it, whose builds note nothing.
 */
import { appendFile, cp, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCommand } from '../support/run-command.ts';

const root = new URL('../../', import.meta.url).pathname;
// What the bundle and the console are built from (.build/inputs.json names files of these), and the settings noted.
const copied = ['mock', 'console', 'contract-model', 'generated', 'client', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'];
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'build-mock-'));
  for (const path of copied) await cp(join(root, path), join(folder, path), { recursive: true });
  await symlink(join(root, 'node_modules'), join(folder, 'node_modules'));
}, 60_000);

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

const build = (...args: string[]) => runCommand(process.execPath, ['scripts/build-mock.mjs', ...args], { cwd: folder });
const builtAt = async () => (await stat(join(folder, '.build', 'main.mjs'))).mtimeMs;

it('builds when there is no build, not again while nothing changed, and again once a file it read changed', async () => {
  const first = await build('--if-changed');
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/^console: console\.js /);
  const built = await builtAt();

  const again = await build('--if-changed');
  expect(again).toMatchObject({ code: 0, stderr: '' });
  expect(await builtAt()).toBe(built);

  await appendFile(join(folder, 'mock', 'main.ts'), '\n// edited\n');
  const edited = await build('--if-changed');
  expect(edited.code, edited.stderr).toBe(0);
  expect(edited.stderr).toMatch(/^console: console\.js /);
  expect(await builtAt()).toBeGreaterThan(built);
}, 120_000);

it('refuses --if-changed beside --outdir or --entry, exit 2', async () => {
  for (const args of [['--outdir', join(folder, 'elsewhere')], ['--entry', 'mock/package/main.ts']]) {
    expect(await build('--if-changed', ...args)).toMatchObject({ code: 2, stderr: expect.stringContaining('--if-changed is for .build/') });
  }
});
