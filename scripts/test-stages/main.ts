/**
 * `npm test`: every check of the kit, in the order a failure is cheapest to find, with a summary at the end.
 * Each stage is an npm script of its own, which can be run alone.
 */
import { parseArgs } from 'node:util';
import { formatSummary, runStages, type Stage } from './run-stages.ts';
import { chooseScratch, thisMachine } from './scratch.ts';
import { longStages, stageGroups, stageScripts } from './stages.ts';

const help = `Usage: npm test [-- --bail] [--only STAGE,…] [--jobs N]

Runs every check (${stageScripts.join(', ')}), three stages at a time, and ends with a summary of each stage:
passed or failed, and how long it took. Exits 1 when any failed. Several at a time, each stage's output is written
whole when it ends, and the stages beside the long one (${[...longStages].join(', ')}) run at a lower priority
so that it is never starved; with --jobs 1 the stages run one after the other and their output streams as it comes.

The tests of tests/ and examples/ run in groups, one stage each (vitest.config.ts says which files are in which):
  test:unit              the fast ones: every file that no group below names
  test:packages          the client's and the mock's packages, packed and installed in an empty project
  test:browser           the browser tests, in real Chromium
  test:state             state that outlives a process: Redis, replicas, SQLite, processes killed and restarted
  test:contract-changes  the breaking-change gate and the release flow, over git histories of the contract
  test:examples          the example app's component tests, in jsdom, with the mock in process

The stages CI's contract job runs, which need nothing but Node, are a group, contract-job (\`npm run test:contract-job\`):
  ${stageGroups['contract-job'].join(', ')}

Scratch files (up to about 540 MB at once, written and deleted) go where TMPDIR says; without it, to a folder of
/dev/shm when that is a memory file system with room to spare, else to the system's temporary directory; the run's first
line says which, and why (scripts/test-stages/scratch.ts).

  --bail          start no stage after the first that fails
  --only LIST     run only these stages (comma-separated names from the lists above: stages or groups)
  --jobs N        how many stages run at once (default 3: most of a stage's time is spent waiting on servers,
                  browsers and child processes; on two cores, side by side, three took 326-389 s in six runs
                  where two took 386-410 s in three, and four were slower again: BENCHMARKS.md)
  -h, --help      show this help`;

const { values } = parseArgs({ options: { bail: { type: 'boolean' }, only: { type: 'string' }, jobs: { type: 'string', default: '3' }, help: { type: 'boolean', short: 'h' } } });
const jobs = Number(values.jobs);
if (values.help) {
  console.log(help);
} else if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16) {
  console.error(`--jobs takes a whole number from 1 to 16, got ${JSON.stringify(values.jobs)}.`);
  process.exitCode = 2;
} else {
  const groups: Record<string, readonly string[]> = stageGroups;
  const only = values.only?.split(',').map((name) => name.trim()).flatMap((name) => groups[name] ?? [name]);
  const unknown = only?.filter((name) => !stageScripts.includes(name)) ?? [];
  if (unknown.length > 0) {
    console.error(`--only: no stage ${unknown.join(', ')}; the stages are ${stageScripts.join(', ')}, and the groups ${Object.keys(groups).join(', ')}.`);
    process.exitCode = 2;
  } else {
    const stages: Stage[] = stageScripts.filter((name) => !only || only.includes(name)).map((name) => ({ name, command: ['npm', 'run', '--silent', name], startsEarly: longStages.has(name) }));
    // Every stage, and all it starts, takes its temporary directory from TMPDIR.
    const scratch = chooseScratch(thisMachine);
    if (scratch.folder !== undefined) process.env.TMPDIR = scratch.folder;
    process.stdout.write(`${scratch.says}\n`);
    const started = performance.now();
    const results = await runStages(stages, { bail: values.bail === true, colour: process.stdout.isTTY === true, jobs, write: (text) => process.stdout.write(text) });
    process.stdout.write(formatSummary(results, jobs > 1 ? (performance.now() - started) / 1000 : undefined));
    process.exitCode = results.some((result) => result.outcome === 'failed') ? 1 : 0;
  }
}
