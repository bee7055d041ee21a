/**
 * The contract suite's own traffic: every request the suite sends the mock it starts, and every answer, recorded by
 * the mock (`--record-traffic`) as a traffic document. Each run against that mock keeps its traffic in
 * `.build/traffic/contract-suite.json`; `npm run traffic:corpus` runs the suite and, when it passes, makes that
 * run's traffic the corpus that ships with the repository (`contract-tests/traffic/contract-suite.json`), which CI's
 * review of a contract change replays (`npm run review -- --traffic …`). A run through the proxy
 * (`npm run test:contract:proxy`) keeps what the proxy recorded of the suite and its sandbox beside it.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Where the last run's traffic is kept. */
export const runTrafficPath = join(projectRoot, '.build', 'traffic', 'contract-suite.json');
/** Where the last run through the proxy (`npm run test:contract:proxy`) keeps what the proxy recorded. */
export const proxyTrafficPath = join(projectRoot, '.build', 'traffic', 'through-proxy.json');
/** The corpus the repository ships. */
export const corpusPath = join(projectRoot, 'contract-tests', 'traffic', 'contract-suite.json');

export function keepRunTraffic(recorded: string, kept = runTrafficPath): void {
  mkdirSync(dirname(kept), { recursive: true });
  copyFileSync(recorded, kept);
}
