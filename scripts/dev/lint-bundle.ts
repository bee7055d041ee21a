/**
 * Redocly's lint of the contract, in-process (a fraction of the CLI's start-up), with the project's redocly.yaml:
 * the fast check `npm run dev` passes an edit through before the mock serves it.
 */
import { join } from 'node:path';
import { lint, loadConfig } from '@redocly/openapi-core';
import { contractRoot, projectRoot } from '../../contract-changes/releases.ts';

export async function lintContract(rootFile = contractRoot): Promise<string[]> {
  const config = await loadConfig({ configPath: join(projectRoot, 'redocly.yaml') });
  const problems = await lint({ ref: rootFile, config });
  return problems
    .filter((problem) => problem.severity === 'error' || problem.severity === 'warn')
    .map((problem) => {
      const where = problem.location[0];
      const file = where?.source.absoluteRef.replace(`${projectRoot}/`, '') ?? '';
      return `${file}${where?.pointer ? ` ${where.pointer}` : ''}: ${problem.message} (${problem.ruleId})`;
    });
}
