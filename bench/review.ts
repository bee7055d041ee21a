/**
 * `npm run bench:review`: how long a contract change takes to review, side by side in one run: `npm run review` as
 * it was at a revision (by default the last one whose review ran `redocly diff` as a CLI, one format per run), once
 * per format a CI wants, against today's, writing every format in one run (`--out DIR`). Both review the same
 * change (three edits: an optional request field, a writeOnly field made required, a value added to a closed enum)
 * in copies of the project in git repositories of their own. Prints each time and the medians; a benchmark, not a
 * test: this machine is shared, so the numbers are read, not asserted.
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

/** `npm run review -- …` in a project, as CI runs it; its wall-clock time in seconds. */
async function timed(project: ReviewProject, args: string[]): Promise<number> {
  const started = performance.now();
  await promisify(execFile)('npm', ['run', '--silent', 'review', '--', ...args], { cwd: project.folder, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { code?: number; stderr?: string }) => {
      // Exit 1 is the verdict (the change breaks the release); anything else is a failure of the review.
      if (error.code !== 1) throw new Error(`npm run review -- ${args.join(' ')} failed: ${error.stderr ?? ''}`);
    });
  return (performance.now() - started) / 1000;
}

const median = (times: readonly number[]): number => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
const seconds = (time: number): string => `${time.toFixed(1)} s`;

const before = await createReviewProject({ codeAt: values.before });
const today = await createReviewProject();
const out = await mkdtemp(join(tmpdir(), 'review-bench-'));
try {
  for (const project of [before, today]) await addThreeEdits(project);
  const perFormat = new Map(formats.map((format) => [format, [] as number[]]));
  const allAtOnce: number[] = [];
  const todayPerFormat = new Map(formats.map((format) => [format, [] as number[]]));
  for (let round = 1; round <= rounds; round += 1) {
    // Interleaved, so that what else the machine does weighs on both alike.
    for (const format of formats) {
      perFormat.get(format)!.push(await timed(before, ['--format', format]));
      todayPerFormat.get(format)!.push(await timed(today, ['--format', format]));
    }
    allAtOnce.push(await timed(today, ['--out', out]));
  }
  const rows = formats.map((format) => [format, median(perFormat.get(format)!), median(todayPerFormat.get(format)!)] as const);
  console.log(`npm run review on three edits, median of ${rounds} rounds (before: ${values.before})\n`);
  console.log('| format | before, one run per format | today, one run per format |\n|---|---|---|');
  for (const [format, was, now] of rows) console.log(`| ${format} | ${seconds(was)} | ${seconds(now)} |`);
  const total = rows.reduce((sum, [, was]) => sum + was, 0);
  console.log(`| **every format** | ${seconds(total)} (five runs) | **${seconds(median(allAtOnce))}** (one run, \`--out DIR\`) |`);
  console.log(`\neach run (s): before ${formats.map((format) => `${format} ${perFormat.get(format)!.map((time) => time.toFixed(1)).join('/')}`).join(', ')}; today, one run: ${allAtOnce.map((time) => time.toFixed(1)).join('/')}`);
} finally {
  await Promise.all([before.remove(), today.remove(), rm(out, { recursive: true, force: true })]);
}
