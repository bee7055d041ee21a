/**
 * The `npm test` runner: every stage runs, failures are counted, the summary fits a screen, no colour when piped; CI's
 * contract job runs a group of its stages by one script.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { belowLong, formatSummary, runStages } from '../../scripts/test-stages/run-stages.ts';
import { stageGroups, stageScripts } from '../../scripts/test-stages/stages.ts';

/** A folder for this test's files, removed when it ends. */
function scratchFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'stages-'));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

const node = (code: string): [string, ...string[]] => [process.execPath, '-e', code];

describe('runStages', () => {
  it('runs every stage after a failure, and reports each', async () => {
    const output: string[] = [];
    const results = await runStages(
      [{ name: 'first', command: node('process.exit(0)') }, { name: 'second', command: node('process.exit(3)') }, { name: 'third', command: node('') }],
      { colour: true, write: (text) => output.push(text) },
    );
    expect(results.map((result) => [result.name, result.outcome, result.exitCode])).toEqual([['first', 'passed', 0], ['second', 'failed', 3], ['third', 'passed', 0]]);
    expect(output.join('')).toContain('▶ second');
  });

  it('stops at the first failure with bail, marking the rest not run', async () => {
    const results = await runStages([{ name: 'fails', command: node('process.exit(1)') }, { name: 'after', command: node('') }], { bail: true, colour: true, write: () => undefined });
    expect(results.map((result) => result.outcome)).toEqual(['failed', 'skipped']);
  });

  it('asks the stages for no colour when the output is not a terminal', async () => {
    const check = "process.exit(process.env.NO_COLOR === '1' && process.env.FORCE_COLOR === '0' ? 0 : 1)";
    const [piped] = await runStages([{ name: 'piped', command: node(check) }], { colour: false, write: () => undefined });
    expect(piped?.outcome).toBe('passed');
  });
});

describe('runStages, two at a time', () => {
  it('runs two stages at once, and writes each one\'s output whole when it ends', async () => {
    const flag = join(scratchFolder(), 'second-started');
    // The first waits for a file the second writes: one at a time, it would wait for ever (the test's timeout).
    const waitsForSecond = `const fs = require('node:fs'); console.log('first: one'); const wait = () => fs.existsSync(${JSON.stringify(flag)}) ? (console.log('first: two'), process.exit(0)) : setTimeout(wait, 20); wait();`;
    const writes = `require('node:fs').writeFileSync(${JSON.stringify(flag)}, ''); console.log('second: one'); console.error('second: two');`;
    const output: string[] = [];
    const results = await runStages([{ name: 'first', command: node(waitsForSecond) }, { name: 'second', command: node(writes) }], { colour: true, jobs: 2, write: (text) => output.push(text) });
    expect(results.map((result) => [result.name, result.outcome])).toEqual([['first', 'passed'], ['second', 'passed']]);
    const text = output.join('');
    expect(text).toMatch(/▶ first: [^\n]*\nfirst: one\nfirst: two\n◀ first passed/);
    expect(text).toMatch(/▶ second: [^\n]*\nsecond: one\nsecond: two\n◀ second passed/);
  });

  it('starts no stage after a failure with bail, and reports the stages in their order', async () => {
    const results = await runStages(
      [{ name: 'fails', command: node('process.exit(1)') }, { name: 'slow', command: node('setTimeout(() => {}, 300)') }, { name: 'after', command: node('') }],
      { bail: true, colour: true, jobs: 2, write: () => undefined },
    );
    expect(results.map((result) => [result.name, result.outcome])).toEqual([['fails', 'failed'], ['slow', 'passed'], ['after', 'skipped']]);
  });
});

describe('runStages, a long stage', () => {
  it('starts right after the first when stages run at once, and is reported in its place', async () => {
    const output: string[] = [];
    const stages = [{ name: 'first', command: node('') }, { name: 'second', command: node('') }, { name: 'long', command: node(''), startsEarly: true }];
    const results = await runStages(stages, { colour: true, jobs: 2, write: (text) => output.push(text) });
    const started = output.join('').match(/▷ \S+ started/g)?.map((line) => line.split(' ')[1]);
    expect(started).toEqual(['first', 'long', 'second']);
    expect(results.map((result) => result.name)).toEqual(['first', 'second', 'long']);
  });

  it('runs beside stages that yield to it: theirs, and what they start, at a lower priority; one at a time, none', async () => {
    // Each stage writes down its own niceness and, a moment later, that of a process it starts, as npm starts a
    // stage's commands (to a file: one at a time, a stage's output goes straight to the terminal).
    const folder = scratchFolder();
    const niceness = (name: string) => node(`const { execFileSync } = require('node:child_process'); const os = require('node:os'); ` +
      `setTimeout(() => require('node:fs').writeFileSync(${JSON.stringify(join(folder, name))}, JSON.stringify([os.getPriority(), ` +
      `Number(execFileSync(process.execPath, ['-e', 'console.log(require("node:os").getPriority())']))])), 200);`);
    const reported = async (jobs: number) => {
      const names = ['first', 'long', 'third'];
      await runStages(names.map((name) => ({ name, command: niceness(name), startsEarly: name === 'long' })), { colour: true, jobs, write: () => undefined });
      return Object.fromEntries(names.map((name) => [name, JSON.parse(readFileSync(join(folder, name), 'utf8')) as number[]]));
    };
    const base = getPriority();
    const lower = Math.min(19, base + belowLong);
    expect(await reported(2)).toEqual({ first: [lower, lower], long: [base, base], third: [lower, lower] });
    expect(await reported(1)).toEqual({ first: [base, base], long: [base, base], third: [base, base] });
  });

  it('leaves every stage at the run\'s priority when none is long', async () => {
    const output: string[] = [];
    await runStages([{ name: 'a', command: node("console.log('nice', require('node:os').getPriority())") }, { name: 'b', command: node('') }], { colour: true, jobs: 2, write: (text) => output.push(text) });
    expect(output.join('')).toContain(`nice ${getPriority()}\n`);
  });

  it('keeps its place in the order given one at a time', async () => {
    const output: string[] = [];
    await runStages([{ name: 'first', command: node('') }, { name: 'second', command: node('') }, { name: 'long', command: node(''), startsEarly: true }], { colour: true, write: (text) => output.push(text) });
    expect(output.join('').match(/▶ \S+/g)).toEqual(['▶ first:', '▶ second:', '▶ long:']);
  });
});

describe('formatSummary', () => {
  it('gives the run\'s own time when stages ran at once', () => {
    const summary = formatSummary([{ name: 'lint', outcome: 'passed', exitCode: 0, seconds: 10 }, { name: 'test:unit', outcome: 'passed', exitCode: 0, seconds: 30 }], 31);
    expect(summary).toContain("All 2 stages passed in 31 s (the stages' own times add up to 40 s).");
  });

  it('is one line per stage and a verdict, without colour codes', () => {
    const summary = formatSummary([
      { name: 'lint', outcome: 'passed', exitCode: 0, seconds: 4.2 },
      { name: 'test:unit', outcome: 'failed', exitCode: 1, seconds: 95 },
      { name: 'test:dredd', outcome: 'skipped', exitCode: null, seconds: 0 },
    ]);
    expect(summary).toContain('✔ lint');
    expect(summary).toMatch(/✖ test:unit\s+95\.0 s {2}\(exit 1\)/);
    expect(summary).toContain('– test:dredd  not run');
    expect(summary).toContain('1 of 3 stages failed');
    expect(summary).not.toMatch(/\u001b\[/);
    expect(summary.split('\n').length).toBeLessThan(25);
  });
});

describe('the contract job\'s group', () => {
  it('is stages of npm test, in its order, run by npm run test:contract-job', () => {
    const group = stageGroups['contract-job'];
    expect(group.every((stage) => stageScripts.includes(stage))).toBe(true);
    expect([...group]).toEqual(stageScripts.filter((stage) => (group as readonly string[]).includes(stage)));
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['test:contract-job']).toBe('node .ci/on-node.cjs tsx scripts/test-stages/main.ts --only contract-job');
  });
});
