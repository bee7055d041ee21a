/**
 * The operation × status coverage of a run: every (operation, status) pair the contract documents is either
 * exercised (a response with that status was received and checked), untestable against this target for a
 * stated reason, or missing — which fails the run.
 */
import type { OperationId } from '../../client/index.ts';
import { contractOperations, documentedPairs } from './contract.ts';
import type { TargetInfo } from './provided.ts';
import type { RunRecord } from './observe.ts';

const faultStatuses = new Set([429, 500, 503]);

/**
 * Why a documented pair cannot be provoked against this target, or `undefined` when it can. Tests may add
 * more through skip records; these are the ones that follow from the target alone.
 */
export function untestableReason(operationId: OperationId, status: number, target: TargetInfo): string | undefined {
  if (faultStatuses.has(status) && !target.mockAdmin) {
    return (
      'needs fault injection (/_mock/faults, only on the mock the suite starts): a sandbox answers 429 only past ' +
      'its real rate limit and 500/503 only when it really fails'
    );
  }
  if (operationId === 'downloadCompanyDocument' && status === 404) {
    return (
      'a download URL is signed over its company and document ids, so a URL the API issued always names an ' +
      'existing document (documents are never deleted), and any other URL is refused with 403 first'
    );
  }
  return undefined;
}

export interface PairState {
  operationId: OperationId;
  status: number;
  state: 'exercised' | 'untestable' | 'missing';
  count: number;
  reason?: string;
}

export interface CoverageReport {
  pairs: PairState[];
  missing: PairState[];
  responses: number;
  violations: number;
  outside: Map<string, number>;
  skips: { check: string; reason: string }[];
}

export function buildCoverage(records: RunRecord[], target: TargetInfo): CoverageReport {
  const counts = new Map<string, number>();
  const outside = new Map<string, number>();
  const skipReasons = new Map<string, string>();
  const skips = new Map<string, { check: string; reason: string }>();
  let responses = 0;
  let violations = 0;
  for (const line of records) {
    if (line.kind === 'response') {
      responses += 1;
      violations += line.violations;
      if (line.operationId === null) {
        // Answers no operation gave: routing's own (unknown path, wrong method), or a refusal before routing.
        const what = `${line.status} (${line.status === 405 ? 'wrong method' : line.status === 404 ? 'unknown path' : 'refused before routing'})`;
        outside.set(what, (outside.get(what) ?? 0) + 1);
      } else {
        const key = `${line.operationId} ${line.status}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    } else if (line.kind === 'skip') {
      skips.set(`${line.check}\u0000${line.reason}`, { check: line.check, reason: line.reason });
      for (const pair of line.pairs) skipReasons.set(`${pair.operationId} ${pair.status}`, line.reason);
    }
  }
  const pairs = documentedPairs().map(({ operationId, status }): PairState => {
    const key = `${operationId} ${status}`;
    const count = counts.get(key) ?? 0;
    if (count > 0) return { operationId, status, state: 'exercised', count };
    const reason = untestableReason(operationId, status, target) ?? skipReasons.get(key);
    return reason ? { operationId, status, state: 'untestable', count, reason } : { operationId, status, state: 'missing', count };
  });
  return { pairs, missing: pairs.filter((pair) => pair.state === 'missing'), responses, violations, outside, skips: [...skips.values()] };
}

/** A fixed-width table for a terminal: one row per operation, one column per documented status. */
export function renderCoverage(report: CoverageReport, target: TargetInfo, complete: boolean): string {
  const statuses = [...new Set(report.pairs.map((pair) => pair.status))].sort((a, b) => a - b);
  const reasons = [...new Set(report.pairs.flatMap((pair) => (pair.reason ? [pair.reason] : [])))];
  const mark = (reason: string) => String.fromCharCode(97 + reasons.indexOf(reason));
  const nameWidth = Math.max(...contractOperations.map((operation) => operation.operationId.length), 9) + 2;
  // Marks sit under the middle digit of their status.
  const cell = (text: string) => (text.length >= 3 ? text : ` ${text}`).padEnd(5);

  const lines: string[] = [];
  lines.push(`Contract coverage: operation × documented status, against ${target.description}`);
  lines.push(`${'operation'.padEnd(nameWidth)}${statuses.map((status) => cell(String(status))).join('')}`);
  lines.push('-'.repeat(nameWidth + statuses.length * 5));
  for (const operation of contractOperations) {
    const row = statuses.map((status) => {
      const pair = report.pairs.find((candidate) => candidate.operationId === operation.operationId && candidate.status === status);
      if (!pair) return cell('');
      if (pair.state === 'exercised') return cell('✓');
      if (pair.state === 'missing') return cell('✗');
      return cell(mark(pair.reason as string));
    });
    lines.push(`${operation.operationId.padEnd(nameWidth)}${row.join('')}`);
  }
  lines.push('');
  lines.push('✓ exercised   ✗ documented, never exercised   a, b… untestable against this target   (blank) not documented');
  for (const reason of reasons) {
    const count = report.pairs.filter((pair) => pair.reason === reason).length;
    lines.push(`  ${mark(reason)}: ${reason} (${count} pair${count === 1 ? '' : 's'})`);
  }
  if (report.skips.length > 0) {
    lines.push('Checks skipped against this target:');
    for (const skip of report.skips) lines.push(`  - ${skip.check}: ${skip.reason}`);
  }
  for (const note of target.notes) lines.push(`Note: ${note}`);
  if (report.outside.size > 0) {
    lines.push(`Outside the operations: ${[...report.outside].map(([what, count]) => `${what} ×${count}`).join(', ')}`);
  }
  const exercised = report.pairs.filter((pair) => pair.state === 'exercised').length;
  const untestable = report.pairs.filter((pair) => pair.state === 'untestable').length;
  lines.push(
    `${report.pairs.length} documented pairs: ${exercised} exercised, ${untestable} untestable here, ${report.missing.length} missing. ` +
      `${report.responses} responses checked against the contract, ${report.violations} violation(s).`,
  );
  if (!complete) lines.push('Partial run (not every test file ran): missing pairs are listed but do not fail the run.');
  if (report.missing.length > 0) {
    lines.push(`Missing: ${report.missing.map((pair) => `${pair.operationId} ${pair.status}`).join(', ')}`);
  }
  return lines.join('\n');
}

export function parseRecords(text: string): RunRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as RunRecord);
}
