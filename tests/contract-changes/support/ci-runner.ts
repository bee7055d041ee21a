/**
 * The CI templates' jobs run here as their runners run them, step by step, in a folder that stands for the checkout:
 * GitHub Actions' `run` steps in bash (`-eo pipefail`), each with its `if` decided as Actions decides it (a
 * condition without a status function must also follow steps that all succeeded), `${{ }}` filled from known values
 * (an unknown one fails the test), `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`; GitLab's `script` entries in order,
 * stopping at the first that fails, with the job's `variables` (each entry in a bash of its own where the runner
 * uses one shell: the templates keep no shell state from one entry to the next). What a runner does by itself (the checkout, Node, the
 * upload of artifacts) is recorded for the test to check rather than done: the folder is the checkout, and Node 24
 * is first on the PATH the test gives.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CommandResult } from '../../support/run-command.ts';

export interface Run extends CommandResult {
  /** Wall-clock seconds. */
  seconds: number;
  /** CPU seconds of the command and every process it started (user and system), when asked for. */
  cpu?: number;
}

export interface GithubStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
}

export interface GithubJob {
  steps: GithubStep[];
  env?: Record<string, string>;
  permissions?: Record<string, string>;
  if?: string;
}

export interface GitlabJob {
  script?: string[];
  rules?: { if?: string; changes?: string[]; when?: string }[];
  variables?: Record<string, string>;
  artifacts?: { when?: string; paths?: string[]; expose_as?: string; reports?: { junit?: string } };
}

/**
 * Runs commands in one folder with one environment. A command in `shared` (the same text in both templates, as the
 * test checks) runs once for the folder as it is and its outcome stands for the next template's run of it, so that
 * two templates cost one `npm ci` and one run of the checks; `forget` says the folder changed.
 */
export function createCommandRunner(folder: string, baseEnv: Record<string, string>, shared: ReadonlySet<string>, { cpu = false } = {}) {
  const outcomes = new Map<string, Promise<Run>>();
  // GNU time reports the CPU of the command's whole tree on its last line of stderr, which is taken off again.
  const command = cpu ? ['/usr/bin/time', '-f', 'cpu %U %S', 'bash'] : ['bash'];
  const execute = async (script: string, env: Record<string, string>): Promise<Run> => {
    const started = performance.now();
    const result = await runCommand(command[0]!, [...command.slice(1), '--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: folder, env: { ...baseEnv, ...env }, maxBuffer: 256 * 1024 * 1024,
    });
    const seconds = (performance.now() - started) / 1000;
    const time = cpu ? /(?:Command exited with non-zero status \d+\n)?cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr) : null;
    if (time === null) return { ...result, seconds };
    return { ...result, stderr: result.stderr.slice(0, time.index), seconds, cpu: Number(time[1]) + Number(time[2]) };
  };
  const run = (script: string, env: Record<string, string> = {}): Promise<Run> => {
    const key = script.trim();
    if (!shared.has(key)) return execute(script, env);
    // The outcome, or the run under way: a second template never runs a shared command beside the first.
    const outcome = outcomes.get(key) ?? execute(script, env);
    outcomes.set(key, outcome);
    return outcome;
  };
  return { run, forget: () => outcomes.clear() };
}

export type CommandRunner = ReturnType<typeof createCommandRunner>;

export interface GithubRun {
  /** Each step in order: `uses` steps are recorded, not run; a step its `if` skipped has no run. */
  steps: { step: GithubStep; ran?: Run }[];
  /** The job's summary: what its steps appended to GITHUB_STEP_SUMMARY. */
  summary: string;
  /** The job's outcome: 0 when every step that ran succeeded. */
  code: number;
}

/** Runs a job's steps as Actions would, `contexts` giving the value of each `${{ }}` (steps' outputs are added). */
export async function runGithubJob(job: GithubJob, runner: CommandRunner, contexts: Record<string, string>, until?: (step: GithubStep) => boolean): Promise<GithubRun> {
  const scratch = await mkdtemp(join(tmpdir(), 'github-runner-'));
  const values = { ...contexts };
  const steps: GithubRun['steps'] = [];
  let summary = '';
  let failed = false;
  try {
    for (const [index, step] of job.steps.entries()) {
      if (until?.(step)) break;
      if (!shouldRun(step.if, failed, values)) {
        steps.push({ step });
        continue;
      }
      if (step.run === undefined) {
        steps.push({ step });
        continue;
      }
      const [output, stepSummary] = [join(scratch, `output-${index}`), join(scratch, `summary-${index}`)];
      await Promise.all([writeFile(output, ''), writeFile(stepSummary, '')]);
      const env = Object.fromEntries(Object.entries({ ...job.env, ...step.env }).map(([name, value]) => [name, expand(String(value), values)]));
      const ran = await runner.run(step.run, { ...env, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: stepSummary, GITHUB_EVENT_NAME: values['github.event_name'] ?? '' });
      steps.push({ step, ran });
      summary += await readFile(stepSummary, 'utf8');
      for (const line of (await readFile(output, 'utf8')).split('\n')) {
        const [name, ...value] = line.split('=');
        if (step.id !== undefined && name) values[`steps.${step.id}.outputs.${name}`] = value.join('=');
      }
      if (ran.code !== 0) failed = true;
    }
    return { steps, summary, code: failed ? 1 : 0 };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `${{ expression }}` replaced by its value; an expression the test gives no value for fails it. */
export function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_match, expression: string) => {
    if (!(expression in values)) throw new Error(`the test has no value for \${{ ${expression} }}`);
    return values[expression]!;
  });
}

/**
 * Whether Actions runs a step: its condition (terms joined by `&&`: a status function, or `context == 'value'`), and
 * unless the condition names a status function, only after steps that all succeeded.
 */
function shouldRun(condition: string | undefined, failed: boolean, values: Record<string, string>): boolean {
  if (condition === undefined) return !failed;
  const body = condition.replace(/^\$\{\{\s*|\s*\}\}$/g, '');
  const statusNamed = /\b(always|cancelled|failure|success)\(\)/.test(body);
  const holds = body.split('&&').every((term) => {
    const trimmed = term.trim();
    if (trimmed === '!cancelled()' || trimmed === 'always()') return true;
    if (trimmed === 'success()') return !failed;
    if (trimmed === 'failure()') return failed;
    const comparison = /^([\w.-]+) (==|!=) '([^']*)'$/.exec(trimmed);
    if (comparison === null) throw new Error(`the test cannot decide the condition ${condition}`);
    const [, name, operator, expected] = comparison;
    if (!(name! in values) && !name!.startsWith('steps.')) throw new Error(`the test has no value for ${name} in ${condition}`);
    return (values[name!] === expected) === (operator === '==');
  });
  return holds && (statusNamed || !failed);
}

/** A GitLab job's script, entry by entry until one fails, with the pipeline's and the job's variables (`$NAME` expanded). */
export async function runGitlabJob(pipeline: Record<string, unknown>, job: GitlabJob, runner: CommandRunner, ciVariables: Record<string, string>, until?: (entry: string) => boolean): Promise<{ code: number; entries: Run[] }> {
  const variables = { ...ciVariables };
  for (const [name, value] of Object.entries({ ...(pipeline.variables as Record<string, string> | undefined), ...job.variables })) {
    variables[name] = String(value).replace(/\$(\w+)/g, (_match, other: string) => variables[other] ?? '');
  }
  const entries: Run[] = [];
  for (const entry of job.script ?? []) {
    if (until?.(entry)) break;
    const ran = await runner.run(entry, variables);
    entries.push(ran);
    if (ran.code !== 0) return { code: ran.code, entries };
  }
  return { code: 0, entries };
}
