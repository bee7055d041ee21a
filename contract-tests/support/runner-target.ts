/**
 * A runner's run against its target, from start to verdict: the server CONTRACT_BASE_URL names, or the mock,
 * built and started here; the tool run against it; then the verdict, in which a mock that died or answered against
 * the contract fails the run even when the tool passed; and, after a failure, where to look.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newSandboxKey } from './fresh-ids.ts';
import type { Interrupt } from './interrupt.ts';
import { mockContractViolations } from './mock-admin.ts';
import { buildMock, startMockProcess, type MockProcess } from '../../mock/launch/mock-process.ts';
import { assertReachable } from './reachability.ts';
import type { TargetVariables } from './target-variables.ts';

export interface RunTarget {
  baseUrl: string;
  apiKey: string;
  /** Whether `/_mock/*` may be used: only on the mock this run started. */
  mockAdmin: boolean;
}

export interface TargetRun {
  /** Names the run's folder in the temporary directory. */
  name: string;
  /** What `readTargetVariables` read, before anything started: `undefined` for the mock. */
  external: TargetVariables | undefined;
  interrupt: Interrupt;
  /** Runs the tool against the target and resolves with its exit status. */
  tool(target: RunTarget, context: { runDir: string; signal: AbortSignal }): Promise<number>;
  /** Printed after a failure, besides the mock's log. */
  hints?: (runDir: string) => string[];
}

/** The mock as the runners start it: formations advance only when told, and no rate limit gets in the way. */
const mockArgs = ['--formation-timeline', 'manual', '--rate-limit', '500000'];

/**
 * Resolves with the run's exit status: the tool's, 1 when the mock failed it or something else went wrong, 128 + n
 * when interrupted by signal n. Throws a TargetConfigError, before anything is started, when the external target
 * does not answer.
 */
export async function runAgainstTarget(run: TargetRun): Promise<number> {
  const { external, interrupt } = run;
  const { signal } = interrupt;
  if (external) {
    console.log(`Target: ${external.baseUrl} (CONTRACT_BASE_URL)`);
    await assertReachable(external.baseUrl);
  }
  const runDir = mkdtempSync(join(tmpdir(), `${run.name}-`));
  let mock: MockProcess | undefined;
  let status = 1;
  let note: string | undefined;
  try {
    let target: RunTarget;
    if (external) {
      target = { ...external, mockAdmin: false };
    } else {
      process.stdout.write('Building and starting the mock… ');
      await buildMock({ signal });
      mock = await startMockProcess({ args: mockArgs, logDir: runDir, signal });
      console.log(mock.url);
      target = { baseUrl: mock.url, apiKey: newSandboxKey(), mockAdmin: true };
    }
    status = await run.tool(target, { runDir, signal });
    if (!signal.aborted) ({ status, note } = await settleWithMock(mock, status));
  } catch (error) {
    if (!signal.aborted) {
      console.error(`\nerror: ${(error as Error).message}`);
      status = 1;
    }
  } finally {
    await mock?.stop();
  }
  const interrupted = interrupt.status();
  if (interrupted !== undefined) {
    // An interrupted run is not a failure to look into: nothing of it is kept.
    rmSync(runDir, { recursive: true, force: true });
    return interrupted;
  }
  report({ status, runDir, note, logFile: mock?.logFile, hints: run.hints?.(runDir) ?? [] });
  return status;
}

async function settleWithMock(mock: MockProcess | undefined, status: number): Promise<{ status: number; note?: string }> {
  if (!mock) return { status };
  const died = mock.exitedEarly();
  if (died) return { status: status || 1, note: died };
  const violations = await mockContractViolations(mock.url);
  if (violations.length > 0) {
    console.error(`\nThe mock answered ${violations.length} request(s) in breach of the contract (its own response check):`);
    for (const violation of violations) console.error(`  - ${violation}`);
    return { status: status || 1 };
  }
  return { status };
}

/** After a success the run's folder goes; after a failure, it stays, and the user is told where to look. */
function report(outcome: { status: number; runDir: string; note: string | undefined; logFile: string | undefined; hints: string[] }): void {
  if (outcome.status === 0) {
    rmSync(outcome.runDir, { recursive: true, force: true });
    return;
  }
  if (outcome.note) console.error(outcome.note);
  if (outcome.logFile && !outcome.note?.includes(outcome.logFile)) console.error(`The mock's log: ${outcome.logFile}`);
  for (const hint of outcome.hints) console.error(hint);
}
