/**
 * The gate on the real contract's own history: every commit that changed openapi/ is compared with the one before
 * it, and the gate's verdict must be the one a reviewer gave that change. None of them broke a partner: they edited
 * descriptions and examples, or (ca35fd4) moved `entityType` between `allOf` members, which Redocly's differ alone
 * reads as breaking.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Level } from '../../contract-changes/classify.ts';
import { compareContracts } from '../../contract-changes/compare.ts';
import { bundleContract } from '../../contract-changes/prepare.ts';
import type { JsonObject } from '../../contract-model/document.ts';

/** Each commit that changed openapi/, oldest first, with the release level its changes need (as reviewed). */
const history: [commit: string, level: Level, what: string][] = [
  ['dd0e3da', 'major', 'the first contract (the baseline of the next step)'],
  ['29578e2', 'patch', 'examples on list arrays; every event lists its data as required (already required through allOf)'],
  ['b661fa4', 'patch', 'server descriptions'],
  ['ca35fd4', 'patch', 'entityType declared by each company variant instead of the common allOf member'],
  ['4869c54', 'patch', "descriptions: a customer's summary lists its 1000 newest companies"],
  ['54f3845', 'patch', 'descriptions: details order and bound, what idempotency stores'],
  ['cdb3e19', 'patch', 'an example on every parameter'],
  ['ac0777a', 'patch', 'descriptions: RateLimit-Remaining can reach twice the limit'],
  ['d56350a', 'patch', 'descriptions: a 429 is not stored for idempotency'],
];

const root = new URL('../../', import.meta.url).pathname;
let folder: string;
const bundles = new Map<string, JsonObject>();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'contract-history-'));
  for (const [commit] of history) {
    try {
      execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root, stdio: 'ignore' });
    } catch {
      throw new Error(`commit ${commit} is not in this clone: the history test needs the full history (not a shallow clone).`);
    }
    const into = join(folder, commit);
    execFileSync('sh', ['-c', `mkdir -p "${into}" && git archive ${commit} openapi | tar -x -C "${into}"`], { cwd: root });
    bundles.set(commit, await bundleContract(join(into, 'openapi', 'openapi.yaml')));
  }
}, 60_000);

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe.concurrent.each(history.slice(1).map((step, index) => [history[index]![0], ...step] as const))(
  '%s → %s',
  (previous, commit, level, what) => {
    it(`needs a ${level} release: ${what}`, async () => {
      const { changes, level: found } = await compareContracts(bundles.get(previous)!, bundles.get(commit)!);
      const breaking = changes.filter((change) => change.category === 'breaking').map((change) => `${change.location.pointer}: ${change.what}`);
      expect(breaking).toEqual([]);
      expect(found).toBe(level);
    });
  },
);
