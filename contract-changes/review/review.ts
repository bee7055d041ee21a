/**
 * The review of one change to the contract: what differs between `openapi/` at a git revision (the base) and the
 * working one. It says whether the working contract breaks the latest release and which of those breaks this change
 * brings (the others were there at the base), what the change adds, changes, deprecates and removes, one entry per
 * edit with where it applies, the lint findings it introduces and the examples it made invalid, each at its file
 * and line. Each contract is bundled and prepared once; the linters run beside the comparison.
 */
import { join } from 'node:path';
import type { JsonObject } from '../../contract-model/document.ts';
import { readAccepted } from '../accepted.ts';
import type { ClassifiedChange } from '../classify.ts';
import { comparePrepared, unacceptedBreaking } from '../compare.ts';
import { detectChanges } from '../detect.ts';
import { describeScope, parsePointer, valueAt } from '../location.ts';
import { bundleContract, prepareForDiff } from '../prepare.ts';
import { formatVersion, listReleases, readRelease } from '../releases.ts';
import { createSourceLines, type SourceLines, type SourcePlace } from '../source-lines.ts';
import { createPlacer, operationAt, toEntries, type ReviewedChange, type Use } from '../entries.ts';
import { checkGitCheckout, checkoutContract, mergeBase, resolveRef } from './contract-at-ref.ts';
import { examplesMadeInvalid, type ExampleFailure } from './example-checks.ts';
import { introducedLintFindings, type LintFinding } from './lint-findings.ts';
import { operationViews, type OperationView } from './operation-views.ts';
import type { TrafficFile } from '../traffic/traffic-file.ts';
import { reviewTraffic, type TrafficReview } from '../traffic/traffic-review.ts';

export type { Action, ReviewedChange, Statement, Use } from '../entries.ts';
export type { OperationView, ViewLine } from './operation-views.ts';
export type { TrafficReview } from '../traffic/traffic-review.ts';

/** An example the change made invalid, said once however many operations show it. */
export interface PlacedExampleFailure {
  place: SourcePlace;
  /** Where the docs show it: the request body of createCompany, … */
  uses: Use[];
  problems: string[];
}

export interface Review {
  base: { ref: string; commit: string };
  /** The latest release, when there is one. */
  release?: string;
  /** The working contract has breaking changes against the latest release that nobody accepted. */
  breaksRelease: boolean;
  /** Base → working, one entry per edit. */
  changes: ReviewedChange[];
  /** Breaks of the latest release that were there at the base already, one entry per edit. */
  breaksAtBase: ReviewedChange[];
  lint: LintFinding[];
  examples: PlacedExampleFailure[];
  /** Each operation and webhook the changes apply to, as a reader of the docs sees it before and after. */
  operations: OperationView[];
  /** What recorded traffic says of the change, when the review was given some (`--traffic FILE`). */
  traffic?: TrafficReview;
}

export interface ReviewOptions {
  /** The project: `openapi/`, `releases/`, the linters' configuration. */
  projectRoot: string;
  /** The revision to compare with; without it, where HEAD left `defaultBranch`. */
  base?: string;
  defaultBranch?: string;
  /**
   * Work on the proposed contract, bundled, to run beside the comparison (the command builds its reference docs):
   * the review returns once it is done, and fails with it.
   */
  alongside?: (proposed: JsonObject) => Promise<void>;
  /** Recorded traffic to replay against the base and the proposed contract (traffic/traffic-file.ts reads it). */
  traffic?: readonly TrafficFile[];
  /** Whether the linters' findings may come from, and go to, their cache (lint-cache.ts); true unless told. */
  lintCache?: boolean;
}

const contractFolder = 'openapi';

export async function reviewChange({ projectRoot, base, defaultBranch = 'main', alongside, traffic, lintCache = true }: ReviewOptions): Promise<Review> {
  await checkGitCheckout(projectRoot);
  const commit = base === undefined ? await mergeBase(projectRoot, defaultBranch) : await resolveRef(projectRoot, base);
  const checkout = await checkoutContract(projectRoot, commit, contractFolder);
  try {
    const workingRoot = join(projectRoot, contractFolder, 'openapi.yaml');
    const baseRoot = join(checkout.folder, 'openapi.yaml');
    // The linters are processes of their own: they run while this one compares.
    const lint = introducedLintFindings(workingRoot, baseRoot, projectRoot, { cache: lintCache });
    lint.catch(() => undefined);
    const [working, before, accepted, latest] = await Promise.all([
      bundleContract(workingRoot), bundleContract(baseRoot), readAccepted(join(projectRoot, 'contract-changes', 'accepted-breaking-changes.yaml')),
      listReleases(join(projectRoot, 'releases')).then((releases) => releases.at(-1)),
    ]);
    const besides = alongside?.(working);
    besides?.catch(() => undefined);
    const prepared = { working: await prepareForDiff(working), before: await prepareForDiff(before) };
    const release = latest === undefined ? undefined : await prepareForDiff(await readRelease(latest, join(projectRoot, 'releases')));
    const placeOf = createSourceLines(workingRoot, projectRoot);
    const placeChange = createPlacer(placeOf, { before, after: working });
    const placeBreak = createPlacer(placeOf, { before: release ?? working, after: working });

    const releaseBreaks = release === undefined ? [] : unacceptedBreaking(comparePrepared({ before: release, after: prepared.working }, accepted).changes);
    const breakingAt = new Set(releaseBreaks.map((change) => change.location.pointer));
    const detected = detectChanges(prepared.before, prepared.working);
    const changes = comparePrepared({ before: prepared.before, after: prepared.working }, accepted, detected).changes;
    const brings = (change: ClassifiedChange) => change.category === 'breaking' && change.accepted === undefined && breakingAt.has(change.location.pointer);
    const brought = new Set(changes.filter(brings).map((change) => change.location.pointer));

    const examples = examplesMadeInvalid(prepared.before, prepared.working, detected.map((change) => change.pointer));
    const entries = toEntries(changes.map((change) => placeChange(change, brings(change))));
    await besides;
    return {
      base: { ref: base ?? `the merge base with ${defaultBranch}`, commit },
      ...(latest === undefined ? {} : { release: formatVersion(latest) }),
      breaksRelease: releaseBreaks.length > 0,
      changes: entries,
      breaksAtBase: toEntries(releaseBreaks.filter((change) => !brought.has(change.location.pointer)).map((change) => placeBreak(change, false))),
      lint: await lint,
      examples: placeExamples(examples, prepared.working, placeOf),
      operations: operationViews(entries, prepared.before, prepared.working),
      ...(traffic === undefined ? {} : { traffic: reviewTraffic(traffic, { base: { bundled: before, prepared: prepared.before }, proposed: { bundled: working, prepared: prepared.working, projectRoot, placeOf } }, entries) }),
    };
  } finally {
    await checkout.remove();
  }
}

/** One entry per example (its file and line), with every place the docs show it. */
function placeExamples(failures: readonly ExampleFailure[], working: JsonObject, placeOf: SourceLines): PlacedExampleFailure[] {
  const byPlace = new Map<string, PlacedExampleFailure>();
  for (const failure of failures) {
    const place = placeOf(failure.pointer);
    const key = [place.file, place.line, ...failure.problems].join('\u0000');
    const entry = byPlace.get(key) ?? { place, uses: [], problems: failure.problems };
    entry.uses.push(exampleUse(failure.pointer, working));
    byPlace.set(key, entry);
  }
  return [...byPlace.values()];
}

/** Where an example is shown: its operation or webhook and the part of the exchange it illustrates. */
function exampleUse(pointer: string, working: JsonObject): Use {
  const segments = parsePointer(pointer);
  const [root, , , keyword, status, inResponse, header] = segments;
  const webhook = root === 'webhooks';
  let part = '';
  if (keyword === 'requestBody') part = webhook ? 'payload' : 'request body';
  else if (keyword === 'responses') part = webhook ? `partner's answer ${status}` : inResponse === 'headers' ? `response ${status} header ${header}` : `response ${status} body`;
  else if (keyword === 'parameters') {
    const parameter = valueAt(working, segments.slice(0, 5)) as { in?: unknown; name?: unknown } | undefined;
    part = `${String(parameter?.in ?? '')} parameter ${String(parameter?.name ?? '')}`.trim();
  }
  const operation = operationAt(pointer, working);
  return { scope: describeScope(segments, working), ...(operation === undefined ? {} : { operation }), part, field: '', pointer };
}
