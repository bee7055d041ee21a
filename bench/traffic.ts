/**
 * `npm run bench:traffic`: what recorded traffic costs a review. A traffic file of 10,000 exchanges (`--exchanges N`),
 * the contract suite's corpus (contract-tests/traffic/) repeated, is replayed against a change that makes
 * `phoneNumber` required: read and checked as a traffic document, every exchange checked against the base and the
 * proposed contract and set beside the change, and what a sandbox answered that the proposal does not document looked
 * for; each phase timed in process (wall-clock and CPU of this process), and then `npm run review` end to end with
 * and without the file, in a copy of the project in a git repository of its own. Prints medians of `--rounds`; a
 * benchmark, not a test: the numbers are read, not asserted.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { bundleContract, prepareForDiff } from '../contract-changes/prepare.ts';
import { reviewChange } from '../contract-changes/review/review.ts';
import { createSourceLines } from '../contract-changes/source-lines.ts';
import { readTrafficFile, type TrafficRecording } from '../contract-changes/traffic/traffic-file.ts';
import { reviewTraffic } from '../contract-changes/traffic/traffic-review.ts';
import { corpusPath } from '../contract-tests/traffic/corpus.ts';
import { createReviewProject, type ReviewProject } from '../tests/contract-changes/support/review-project.ts';

const { values } = parseArgs({ options: { exchanges: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '3' } } });
const count = Number(values.exchanges);
const rounds = Number(values.rounds);

interface Timing {
  wall: number;
  cpu: number;
}

async function timedHere<T>(work: () => Promise<T> | T): Promise<{ value: T; timing: Timing }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, timing: { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 } };
}

/** `npm run review -- …` in the project, under GNU time for the CPU of every process it starts. */
async function timedReview(project: ReviewProject, args: string[]): Promise<Timing> {
  const started = performance.now();
  const { stderr } = await promisify(execFile)('/usr/bin/time', ['-f', 'cpu %U %S', 'npm', 'run', '--silent', 'review', '--', ...args], { cwd: project.folder, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { code?: number; stderr?: string }) => {
      // Exit 1 is the verdict (the change breaks the release).
      if (error.code !== 1) throw new Error(`npm run review -- ${args.join(' ')} failed: ${error.stderr ?? ''}`);
      return { stderr: error.stderr ?? '' };
    });
  const [user = 0, system = 0] = (/cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr)?.slice(1) ?? []).map(Number);
  return { wall: (performance.now() - started) / 1000, cpu: user + system };
}

const median = (times: readonly number[]): number => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
const shown = (timings: readonly Timing[]): string => `${median(timings.map((t) => t.wall)).toFixed(2)} s | ${median(timings.map((t) => t.cpu)).toFixed(2)} s`;

/** The corpus's exchanges, repeated to `count`. */
async function trafficOf(count: number, file: string): Promise<number> {
  const corpus = JSON.parse(await readFile(corpusPath, 'utf8')) as TrafficRecording;
  const exchanges = Array.from({ length: count }, (_, index) => corpus.exchanges[index % corpus.exchanges.length]!);
  const text = JSON.stringify({ ...corpus, exchanges });
  await writeFile(file, text);
  return Buffer.byteLength(text);
}

const project = await createReviewProject();
const scratch = await mkdtemp(join(tmpdir(), 'traffic-bench-'));
try {
  await project.edit('openapi/components/schemas/CustomerCreateRequest.yaml', 'required: [email, firstName, lastName, countryOfResidence]', 'required: [email, firstName, lastName, countryOfResidence, phoneNumber]');
  const file = join(scratch, 'traffic.json');
  const bytes = await trafficOf(count, file);
  const root = join(project.folder, 'openapi', 'openapi.yaml');
  const review = await reviewChange({ projectRoot: project.folder });
  const proposedBundle = await bundleContract(root);
  const baseBundle = await bundleContract(join(process.cwd(), 'openapi', 'openapi.yaml'));
  const phases: Record<'read' | 'replay' | 'review' | 'reviewWith', Timing[]> = { read: [], replay: [], review: [], reviewWith: [] };
  let refused = 0;
  for (let round = 1; round <= rounds; round += 1) {
    const read = await timedHere(() => readTrafficFile(file));
    phases.read.push(read.timing);
    // The contracts bundled and prepared anew each round: what the review pays for them once is in its own time.
    const base = { bundled: structuredClone(baseBundle), prepared: await prepareForDiff(structuredClone(baseBundle)) };
    const proposed = { bundled: structuredClone(proposedBundle), prepared: await prepareForDiff(structuredClone(proposedBundle)), projectRoot: project.folder, placeOf: createSourceLines(root, project.folder) };
    const replayed = await timedHere(() => reviewTraffic([read.value], { base, proposed }, review.changes));
    refused = replayed.value.newlyFailing.request;
    phases.replay.push(replayed.timing);
    phases.review.push(await timedReview(project, ['--format', 'markdown']));
    phases.reviewWith.push(await timedReview(project, ['--format', 'markdown', '--traffic', file]));
  }
  console.log(`Recorded traffic in a review: ${count.toLocaleString('en-US')} exchanges (${(bytes / 1024 / 1024).toFixed(1)} MiB), a change making phoneNumber required (it refuses ${refused.toLocaleString('en-US')} of them); medians of ${rounds} rounds\n`);
  console.log('| phase | wall-clock | CPU |\n|---|---|---|');
  console.log(`| read and checked as a traffic document | ${shown(phases.read)} |`);
  console.log(`| every exchange checked against base and proposal, set beside the changes, undocumented answers looked for | ${shown(phases.replay)} |`);
  console.log(`| **in process, together** | ${shown(phases.read.map((read, index) => ({ wall: read.wall + phases.replay[index]!.wall, cpu: read.cpu + phases.replay[index]!.cpu })))} |`);
  console.log(`| npm run review, without --traffic | ${shown(phases.review)} |`);
  console.log(`| npm run review -- --traffic FILE | ${shown(phases.reviewWith)} |`);
} finally {
  await Promise.all([project.remove(), rm(scratch, { recursive: true, force: true })]);
}
