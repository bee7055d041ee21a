/**
 * `npm run bench:review`: how long a contract change takes to review, side by side in one run: `npm run review` as
 * it was at a revision (by default the last one whose review ran `redocly diff` as a CLI, one format per run), once
 * per format a CI wants, against today's, writing every format in one run (`--out DIR`). Both review the same
 * change (three edits: an optional request field, a writeOnly field made required, a value added to a closed enum)
 * in copies of the project in git repositories of their own. Today's also writes every format without the proposed
 * contract's reference docs (`--no-docs`), to show what building them adds. Prints the medians of wall-clock time and of the CPU
 * time of each run's processes (GNU time, /usr/bin/time), which other work on a shared machine sways less; a
 * benchmark, not a test: the numbers are read, not asserted.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { addThreeEdits, createReviewProject, type ReviewProject } from '../tests/contract-changes/support/review-project.ts';

const { values } = parseArgs({ options: { before: { type: 'string', default: '81821ec' }, rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);
const formats = ['text', 'markdown', 'html', 'junit', 'github'];

interface Timing {
  /** Wall-clock seconds. */
  wall: number;
  /** CPU seconds of the run and every process it started (user and system), which other work on the machine sways less. */
  cpu: number;
}

/** `npm run review -- …` in a project, as CI runs it, under GNU time for the CPU its processes use. */
async function timed(project: ReviewProject, args: string[]): Promise<Timing> {
  const started = performance.now();
  const command = ['-f', 'cpu %U %S', 'npm', 'run', '--silent', 'review', '--', ...args];
  const { stderr } = await promisify(execFile)('/usr/bin/time', command, { cwd: project.folder, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { code?: number; stderr?: string; stdout?: string }) => {
      // Exit 1 is the verdict (the change breaks the release); anything else is a failure of the review.
      if (error.code !== 1) throw new Error(`npm run review -- ${args.join(' ')} failed: ${error.stderr ?? ''}`);
      return { stderr: error.stderr ?? '' };
    });
  const [user = 0, system = 0] = (/cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr)?.slice(1) ?? []).map(Number);
  return { wall: (performance.now() - started) / 1000, cpu: user + system };
}

const median = (times: readonly number[]): number => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
const seconds = (time: number): string => `${time.toFixed(1)} s`;
/** `5.2 s (cpu 4.1 s)`: the medians of a list of timings. */
const shown = (timings: readonly Timing[]): string =>
  `${seconds(median(timings.map((timing) => timing.wall)))} (cpu ${seconds(median(timings.map((timing) => timing.cpu)))})`;

const before = await createReviewProject({ codeAt: values.before });
const today = await createReviewProject();
const out = await mkdtemp(join(tmpdir(), 'review-bench-'));
try {
  for (const project of [before, today]) await addThreeEdits(project);
  const perFormat = new Map(formats.map((format) => [format, [] as Timing[]]));
  const todayPerFormat = new Map(formats.map((format) => [format, [] as Timing[]]));
  const allAtOnce: Timing[] = [];
  const withoutDocs: Timing[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    // Interleaved, so that what else the machine does weighs on both alike.
    for (const format of formats) {
      perFormat.get(format)!.push(await timed(before, ['--format', format]));
      todayPerFormat.get(format)!.push(await timed(today, ['--format', format]));
    }
    allAtOnce.push(await timed(today, ['--out', out]));
    withoutDocs.push(await timed(today, ['--out', out, '--no-docs']));
  }
  console.log(`npm run review on three edits: wall-clock and CPU seconds, medians of ${rounds} rounds (before: ${values.before})\n`);
  console.log('| format | before, one run per format | today, one run per format |\n|---|---|---|');
  for (const format of formats) console.log(`| ${format} | ${shown(perFormat.get(format)!)} | ${shown(todayPerFormat.get(format)!)} |`);
  const sum = (pick: (timing: Timing) => number) => formats.reduce((total, format) => total + median(perFormat.get(format)!.map(pick)), 0);
  console.log(`| **every format** | ${seconds(sum((timing) => timing.wall))} (cpu ${seconds(sum((timing) => timing.cpu))}), five runs | **${shown(allAtOnce)}**, one run (\`--out DIR\`, with the proposed docs) |`);
  console.log(`| every format, without the proposed docs | | ${shown(withoutDocs)}, one run (\`--out DIR --no-docs\`) |`);
  console.log(`\neach run, wall-clock (s): before ${formats.map((format) => `${format} ${perFormat.get(format)!.map((timing) => timing.wall.toFixed(1)).join('/')}`).join(', ')}; today, every format in one run: ${allAtOnce.map((timing) => timing.wall.toFixed(1)).join('/')}, without the docs: ${withoutDocs.map((timing) => timing.wall.toFixed(1)).join('/')}`);
} finally {
  await Promise.all([before.remove(), today.remove(), rm(out, { recursive: true, force: true })]);
}
