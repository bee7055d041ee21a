/**
 * `npm run traffic:corpus`: runs the contract suite against the mock it starts (`npm run test:contract`) and, when it
 * passes, makes the traffic the mock recorded the corpus the repository ships (corpus.ts). A run that fails leaves
 * the corpus as it was: traffic of a suite that did not pass is not what a review should be measured by.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { corpusPath, runTrafficPath } from './corpus.ts';

const run = spawnSync('npm', ['run', 'test:contract', ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, CONTRACT_BASE_URL: '' } });
if (run.status !== 0) {
  console.error(`traffic:corpus: the contract suite failed; ${relative(process.cwd(), corpusPath)} is left as it was.`);
  process.exitCode = run.status ?? 1;
} else {
  copyFileSync(runTrafficPath, corpusPath);
  console.log(`traffic:corpus: wrote ${relative(process.cwd(), corpusPath)} (${statSync(corpusPath).size} bytes), the traffic of this run of the contract suite.`);
}
