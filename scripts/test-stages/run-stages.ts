/**
 * Runs stages one after the other (each an npm script), streaming their output, and ends with a one-screen summary:
 * each stage, whether it passed, how long it took. Every stage runs even after one fails, so a single run shows
 * everything that is wrong (`--bail` stops at the first failure). When the output is not a terminal (CI logs, a
 * pipe), the stages are asked for no colour codes.
 */
import { spawn } from 'node:child_process';

export interface Stage {
  name: string;
  /** The command and its arguments. */
  command: [string, ...string[]];
}

export interface StageResult {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  exitCode: number | null;
  seconds: number;
}

export async function runStages(stages: readonly Stage[], options: { bail?: boolean; colour: boolean; write: (text: string) => void }): Promise<StageResult[]> {
  const env = options.colour ? process.env : { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const results: StageResult[] = [];
  for (const stage of stages) {
    if (options.bail && results.some((result) => result.outcome === 'failed')) {
      results.push({ name: stage.name, outcome: 'skipped', exitCode: null, seconds: 0 });
      continue;
    }
    options.write(`\n▶ ${stage.name}: ${stage.command.join(' ')}\n`);
    const started = performance.now();
    const exitCode = await new Promise<number | null>((resolve) => {
      const child = spawn(stage.command[0], stage.command.slice(1), { stdio: 'inherit', env });
      child.on('error', () => resolve(127));
      child.on('exit', (code) => resolve(code));
    });
    results.push({ name: stage.name, outcome: exitCode === 0 ? 'passed' : 'failed', exitCode, seconds: (performance.now() - started) / 1000 });
  }
  return results;
}

export function formatSummary(results: readonly StageResult[]): string {
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
  return ['', 'Summary', ...lines, `${verdict} in ${total.toFixed(0)} s.`, ''].join('\n');
}
