/**
 * The check a save goes through before `npm run dev` serves it: the contract bundled (here) and linted with
 * Redocly's rules (in a worker, lint-worker.ts, at the same time); it passes when both find nothing. Spectral's
 * house rules are not part of it: they take seconds, and run after (main.ts).
 */
import { Worker } from 'node:worker_threads';
import { bundle, createConfig } from '@redocly/openapi-core';
import type { JsonObject } from '../../contract-model/document.ts';
import { contractRoot } from '../../contract-changes/releases.ts';
import { describeProblems } from './contract-problems.ts';

export type ContractCheck = { passes: true; document: JsonObject } | { passes: false; problems: string[] };

export interface ContractChecker {
  check(): Promise<ContractCheck>;
  close(): Promise<void>;
}

export function createContractChecker(): ContractChecker {
  const worker = new Worker(new URL('./lint-worker.ts', import.meta.url));
  worker.unref();
  const waiting = new Map<number, (problems: string[]) => void>();
  let asked = 0;
  worker.on('message', ({ id, problems }: { id: number; problems: string[] }) => {
    waiting.get(id)?.(problems);
    waiting.delete(id);
  });
  worker.on('error', (error) => {
    for (const answer of waiting.values()) answer([`the lint stopped: ${error.message}`]);
    waiting.clear();
  });
  const lint = () =>
    new Promise<string[]>((resolve) => {
      asked += 1;
      waiting.set(asked, resolve);
      worker.postMessage(asked);
    });
  const config = createConfig({});
  const bundled = async () => {
    const { bundle: result, problems } = await bundle({ ref: contractRoot, config: await config });
    return { document: result.parsed as JsonObject, problems: describeProblems(problems.filter((problem) => problem.severity === 'error')) };
  };
  return {
    async check() {
      const [lintProblems, { document, problems }] = await Promise.all([lint(), bundled().catch((error: unknown) => ({ document: undefined, problems: [(error as Error).message] }))]);
      // The linter resolves the files as the bundler does, and reports what stops the bundle too, under its own
      // rule's name: the bundler's are said only when the linter found nothing.
      const said = lintProblems.length > 0 ? lintProblems : problems;
      return said.length === 0 && document ? { passes: true, document } : { passes: false, problems: said };
    },
    close: () => worker.terminate().then(() => undefined),
  };
}
