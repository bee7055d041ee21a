/**
 * Redocly's problems with the contract (its bundler's and its linter's) as `npm run dev` and `npm run generate` print
 * them: one line each, at the file and line of the source under openapi/ where an editor jumps to, errors and warnings
 * alike (the project's rules make a warning fail the lint too), each said once.
 */
import { relative } from 'node:path';
import { getLineColLocation, type NormalizedProblem } from '@redocly/openapi-core';
import { projectRoot } from '../../contract-changes/releases.ts';

export function describeProblems(problems: readonly NormalizedProblem[]): string[] {
  const lines = problems.filter((problem) => problem.severity === 'error' || problem.severity === 'warn').map(describe);
  return [...new Set(lines)];
}

function describe(problem: NormalizedProblem): string {
  const where = problem.location[0];
  if (!where) return `${problem.message} (${problem.ruleId})`;
  const file = relative(projectRoot, where.source.absoluteRef);
  const { start } = getLineColLocation(where);
  return `${file}:${start.line}:${start.col}: ${problem.message} (${problem.ruleId})`;
}
