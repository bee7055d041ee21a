/**
 * The review of one change to the contract: what differs between `openapi/` at a git revision (the base) and the
 * working one. It says whether the working contract breaks the latest release and which of those breaks this change
 * brings (the others were there at the base), what the change adds, changes, deprecates and removes per operation
 * and webhook, the lint findings it introduces and the examples it made invalid, each at its file and line.
 */
import { join } from 'node:path';
import type { JsonObject } from '../../contract-model/document.ts';
import { readAccepted } from '../accepted.ts';
import type { ClassifiedChange } from '../classify.ts';
import { compareContracts, unacceptedBreaking } from '../compare.ts';
import { describeScope, isMethod, parsePointer, valueAt } from '../location.ts';
import { bundleContract, prepareForDiff } from '../prepare.ts';
import { formatVersion, listReleases, readRelease } from '../releases.ts';
import { createSourceLines, type SourcePlace } from '../source-lines.ts';
import { checkGitCheckout, checkoutContract, mergeBase, resolveRef } from './contract-at-ref.ts';
import { examplesNoLongerValid, type ExampleFailure } from './example-checks.ts';
import { introducedFindings, lintContract, type LintFinding } from './lint-findings.ts';

/** How a partner would say it: what the change did to the thing at its place. */
export type Action = 'added' | 'changed' | 'deprecated' | 'removed';

export interface ReviewedChange extends ClassifiedChange {
  action: Action;
  place: SourcePlace;
  /** One of the breaks of the latest release this change brings. */
  breaksRelease: boolean;
  /** The operation or webhook it is in, as the reference docs name it. */
  operation?: { operationId: string; tag?: string };
}

export interface PlacedExampleFailure extends ExampleFailure {
  scope: string;
  place: SourcePlace;
}

export interface Review {
  base: { ref: string; commit: string };
  /** The latest release, when there is one. */
  release?: string;
  /** The working contract has breaking changes against the latest release that nobody accepted. */
  breaksRelease: boolean;
  /** Those of them this change brings: not there at the base. */
  introducedBreaks: ReviewedChange[];
  /** How many were there at the base already. */
  breaksAtBase: number;
  /** Base → working, as a partner reads them. */
  changes: ReviewedChange[];
  lint: LintFinding[];
  examples: PlacedExampleFailure[];
}

export interface ReviewOptions {
  /** The project: `openapi/`, `releases/`, the linters' configuration. */
  projectRoot: string;
  /** The revision to compare with; without it, where HEAD left `defaultBranch`. */
  base?: string;
  defaultBranch?: string;
}

const contractFolder = 'openapi';

export async function reviewChange({ projectRoot, base, defaultBranch = 'main' }: ReviewOptions): Promise<Review> {
  await checkGitCheckout(projectRoot);
  const commit = base === undefined ? await mergeBase(projectRoot, defaultBranch) : await resolveRef(projectRoot, base);
  const checkout = await checkoutContract(projectRoot, commit, contractFolder);
  try {
    const workingRoot = join(projectRoot, contractFolder, 'openapi.yaml');
    const baseRoot = join(checkout.folder, 'openapi.yaml');
    const [working, before, accepted, latest] = await Promise.all([
      bundleContract(workingRoot), bundleContract(baseRoot), readAccepted(join(projectRoot, 'contract-changes', 'accepted-breaking-changes.yaml')),
      listReleases(join(projectRoot, 'releases')).then((releases) => releases.at(-1)),
    ]);
    const placeOf = createSourceLines(workingRoot, projectRoot);
    const verdict = await verdictAgainst(latest === undefined ? undefined : await readRelease(latest, join(projectRoot, 'releases')), before, working, accepted);
    const introduced = new Set(verdict.introduced.map(sameBreak));
    const reviewed = (change: ClassifiedChange): ReviewedChange => {
      const operation = operationAt(change.location.pointer, change.kind === 'removed' ? before : working);
      return {
        ...change,
        action: actionOf(change),
        place: placeOf(change.location.pointer),
        breaksRelease: introduced.has(sameBreak(change)),
        ...(operation === undefined ? {} : { operation }),
      };
    };

    const [changes, lint, examples] = await Promise.all([
      compareContracts(before, working).then((comparison) => comparison.changes.map(reviewed)),
      Promise.all([lintContract(baseRoot, projectRoot), lintContract(workingRoot, projectRoot)])
        .then(([was, now]) => introducedFindings(was, now)),
      Promise.all([prepareForDiff(before), prepareForDiff(working)]).then(([was, now]) => examplesNoLongerValid(was, now).map((failure) => ({
        ...failure,
        scope: describeScope(parsePointer(failure.pointer), was),
        place: placeOf(failure.pointer),
      }))),
    ]);
    return {
      base: { ref: base ?? `the merge base with ${defaultBranch}`, commit },
      ...(latest === undefined ? {} : { release: formatVersion(latest) }),
      breaksRelease: verdict.breaking.length > 0,
      introducedBreaks: verdict.introduced.map(reviewed),
      breaksAtBase: verdict.breaking.length - verdict.introduced.length,
      changes,
      lint,
      examples,
    };
  } finally {
    await checkout.remove();
  }
}

async function verdictAgainst(
  release: JsonObject | undefined, before: JsonObject, working: JsonObject, accepted: Awaited<ReturnType<typeof readAccepted>>,
): Promise<{ breaking: ClassifiedChange[]; introduced: ClassifiedChange[] }> {
  if (release === undefined) return { breaking: [], introduced: [] };
  const [now, was] = await Promise.all([compareContracts(release, working, accepted), compareContracts(release, before, accepted)]);
  const known = new Set(unacceptedBreaking(was.changes).map(sameBreak));
  const breaking = unacceptedBreaking(now.changes);
  return { breaking, introduced: breaking.filter((change) => !known.has(sameBreak(change))) };
}

const sameBreak = (change: ClassifiedChange): string => `${change.location.pointer} ${change.what}`;

/** The operation or webhook a pointer is in (`#/paths/<path>/<method>/…`), read from a bundled contract. */
function operationAt(pointer: string, contract: JsonObject): ReviewedChange['operation'] {
  const [root, name, method] = parsePointer(pointer);
  if ((root !== 'paths' && root !== 'webhooks') || name === undefined || !isMethod(method)) return undefined;
  const operation = valueAt(contract, [root, name, method!]) as { operationId?: unknown; tags?: unknown } | undefined;
  if (typeof operation?.operationId !== 'string') return undefined;
  const [tag] = Array.isArray(operation.tags) ? operation.tags : [];
  return { operationId: operation.operationId, ...(typeof tag === 'string' ? { tag } : {}) };
}

function actionOf(change: ClassifiedChange): Action {
  if (change.category === 'deprecated') return 'deprecated';
  if (change.kind === 'removed') return 'removed';
  return change.category === 'added' || change.kind === 'added' ? 'added' : 'changed';
}
