/**
 * Runs stages (each an npm script), `jobs` at a time, and ends with a one-screen summary: each stage, whether it
 * passed, how long it took. Every stage runs even after one fails, so a single run shows everything that is wrong
 * (`--bail` starts no stage after the first failure). One at a time, a stage's output streams as it comes; several
 * at a time, each stage's output is kept and written whole when it ends, so that stages do not interleave. When the
 * output is not a terminal (CI logs, a pipe), the stages are asked for no colour codes.
 */
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';

export interface Stage {
  name: string;
  /** The command and its arguments. */
  command: [string, ...string[]];
  /**
   * Several at a time, started right after the first stage rather than in its place: a stage that takes much longer
   * than the others, which started last would run alone at the end (the longest first is what keeps lanes even).
   * The stages beside it run at a lower priority (see `belowLong`), so that it gets the processor whenever it wants it
   * and they take what it leaves.
   */
  startsEarly?: boolean;
}

export interface StageResult {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  exitCode: number | null;
  seconds: number;
}

export interface RunOptions {
  bail?: boolean;
  colour: boolean;
  write: (text: string) => void;
  /** How many stages run at once; 1 unless given. */
  jobs?: number;
}

export async function runStages(stages: readonly Stage[], options: RunOptions): Promise<StageResult[]> {
  const env = options.colour ? process.env : { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const jobs = Math.max(1, Math.min(options.jobs ?? 1, stages.length));
  // The priority of the stages beside a long one, when one runs beside them.
  const besideLong = jobs > 1 && stages.some((stage) => stage.startsEarly) ? Math.min(19, getPriority() + belowLong) : undefined;
  const results: StageResult[] = [];
  // One at a time, the order given (the cheapest failure first); several, the long ones beside the rest.
  const indices = stages.map((_, index) => index);
  const order = jobs === 1 ? indices : [...indices.slice(0, 1), ...indices.slice(1).filter((index) => stages[index]?.startsEarly), ...indices.slice(1).filter((index) => !stages[index]?.startsEarly)];
  let next = 0;
  const lane = async () => {
    for (let index = order[next++]; index !== undefined; index = order[next++]) {
      const stage = stages[index] as Stage;
      if (options.bail && results.some((result) => result?.outcome === 'failed')) {
        results[index] = { name: stage.name, outcome: 'skipped', exitCode: null, seconds: 0 };
        continue;
      }
      results[index] = await runStage(stage, env, jobs === 1, options.write, stage.startsEarly ? undefined : besideLong);
    }
  };
  await Promise.all(Array.from({ length: jobs }, lane));
  return results;
}

/**
 * How much lower than the run's own priority a stage beside a long one runs (a niceness, added to the run's, at most
 * 19). The long stage sets how long the run takes; the others mostly wait on servers, browsers and timers. At the
 * same priority, three at a time on two cores, the long stage got a third of the processor and ended last, alone;
 * below it, the others fill what it leaves (BENCHMARKS.md, "npm test on two cores").
 */
export const belowLong = 10;

/** `priority`: the niceness the stage runs at, when not the run's own. */
async function runStage(stage: Stage, env: NodeJS.ProcessEnv, stream: boolean, write: (text: string) => void, priority: number | undefined): Promise<StageResult> {
  const header = `\n▶ ${stage.name}: ${stage.command.join(' ')}\n`;
  if (stream) write(header);
  else write(`▷ ${stage.name} started\n`);
  const started = performance.now();
  const output: Buffer[] = [];
  const exitCode = await new Promise<number | null>((resolve) => {
    const child = spawn(stage.command[0], stage.command.slice(1), { stdio: stream ? 'inherit' : ['ignore', 'pipe', 'pipe'], env });
    // Set as soon as the stage's process exists: npm takes a while to start before it starts the stage's commands,
    // which take the priority it has then, and so does everything they start.
    if (priority !== undefined && child.pid !== undefined) lowerPriority(child.pid, priority);
    // Kept in the order it came, stdout and stderr together, as a terminal would have shown them.
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', () => resolve(127));
    child.on('close', (code) => resolve(code));
  });
  const result: StageResult = { name: stage.name, outcome: exitCode === 0 ? 'passed' : 'failed', exitCode, seconds: (performance.now() - started) / 1000 };
  if (!stream) write(`${header}${Buffer.concat(output).toString('utf8')}◀ ${stage.name} ${result.outcome} in ${result.seconds.toFixed(1)} s\n`);
  return result;
}

function lowerPriority(pid: number, priority: number): void {
  try {
    setPriority(pid, priority);
  } catch {
    // The stage ended already, or the system refuses: it runs at the run's priority, which only makes it slower.
  }
}

/** `wallSeconds`: how long the run took, when stages ran at once and their own times add up to more. */
export function formatSummary(results: readonly StageResult[], wallSeconds?: number): string {
  const width = Math.max(...results.map((result) => result.name.length));
  const mark = { passed: '✔', failed: '✖', skipped: '–' } as const;
  const lines = results.map((result) => {
    const time = result.outcome === 'skipped' ? 'not run' : `${result.seconds.toFixed(1).padStart(6)} s`;
    const code = result.outcome === 'failed' ? `  (exit ${result.exitCode ?? 'signal'})` : '';
    return `  ${mark[result.outcome]} ${result.name.padEnd(width)}  ${time}${code}`;
  });
  const failed = results.filter((result) => result.outcome === 'failed').length;
  const total = results.reduce((sum, result) => sum + result.seconds, 0);
  const verdict = failed === 0 ? `All ${results.length} stages passed` : `${failed} of ${results.length} stages failed`;
  const took = wallSeconds === undefined ? `in ${total.toFixed(0)} s` : `in ${wallSeconds.toFixed(0)} s (the stages' own times add up to ${total.toFixed(0)} s)`;
  return ['', 'Summary', ...lines, `${verdict} ${took}.`, ''].join('\n');
}
