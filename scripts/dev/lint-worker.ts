/**
 * Redocly's lint of the contract with the project's redocly.yaml, in a worker thread of `npm run dev`: it runs
 * beside the bundling on the other core, its configuration loaded once. Each message asks for a lint of the
 * contract as it is on disk; the answer is its problems, described (contract-problems.ts).
 */
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { lint, loadConfig } from '@redocly/openapi-core';
import { contractRoot, projectRoot } from '../../contract-changes/releases.ts';
import { describeProblems } from './contract-problems.ts';

const config = loadConfig({ configPath: join(projectRoot, 'redocly.yaml') });

parentPort?.on('message', (id: number) => {
  void (async () => {
    try {
      const problems = await lint({ ref: contractRoot, config: await config });
      parentPort?.postMessage({ id, problems: describeProblems(problems) });
    } catch (error) {
      parentPort?.postMessage({ id, problems: [`the lint failed: ${(error as Error).message}`] });
    }
  })();
});
