/**
 * The groups of tests/ and examples/ (vitest.config.ts) add up to every test file, each in exactly one group, and
 * `npm test` runs every group as a stage of its own. Asked of vitest itself (`vitest list`), so that what is checked
 * is what it runs: a new file lands in `unit` unless a group names it, and can never drop out of `npm test`.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { stageScripts } from '../../scripts/test-stages/stages.ts';
import { slowGroups } from '../../vitest.config.ts';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Every file vitest would take for a test: the patterns of the root config before the groups split it. */
const testFiles = [
  ...readdirSync(join(root, 'tests'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test(-d)?\.ts$/.test(file))
    .map((file) => join('tests', file)),
  // The example app's component tests, beside its code (examples/frontend/tests/).
  ...readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx$/.test(file) && !file.split('/').includes('node_modules'))
    .map((file) => join('examples', file)),
].sort();

let listed: { file: string; group: string }[];

beforeAll(async () => {
  // Without this run's VITEST* variables, which would tell the child it runs inside a test worker.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  const { stdout } = await run(bin('vitest'), ['list', '--filesOnly', '--json'], { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
  const entries = JSON.parse(stdout.slice(stdout.indexOf('['))) as { file: string; projectName?: string }[];
  listed = entries.map((entry) => ({ file: relative(root, entry.file), group: entry.projectName ?? '(no group)' }));
}, 60_000);

describe('the groups of tests/', () => {
  it('hold every test file, each exactly once', () => {
    expect(testFiles.length).toBeGreaterThan(50);
    const counts = new Map<string, string[]>();
    for (const { file, group } of listed) counts.set(file, [...(counts.get(file) ?? []), group]);
    const notOnce = [...counts].filter(([, groups]) => groups.length !== 1);
    expect(notOnce, 'files in more than one group').toEqual([]);
    expect([...counts.keys()].sort(), 'files in no group, or groups naming files that are not tests').toEqual(testFiles);
  });

  it('are unit and the slow groups vitest.config.ts names, each with files', () => {
    const groups = [...new Set(listed.map((entry) => entry.group))].sort();
    expect(groups).toEqual(['unit', ...Object.keys(slowGroups)].sort());
  });

  it('each run by an npm script of their own, a stage of npm test', () => {
    const groups = ['unit', ...Object.keys(slowGroups)];
    for (const group of groups) {
      expect(scripts[`test:${group}`], `the script test:${group}`).toBe(`node .ci/on-node.cjs vitest run --project ${group}`);
      expect(stageScripts, `npm test's stages`).toContain(`test:${group}`);
    }
  });

  it("are each described in npm test's --help", async () => {
    const { stdout } = await run(bin('tsx'), [join(root, 'scripts/test-stages/main.ts'), '--help'], { cwd: root });
    for (const group of ['unit', ...Object.keys(slowGroups)]) expect(stdout).toMatch(new RegExp(`^ +test:${group} +\\S`, 'm'));
  });
});
