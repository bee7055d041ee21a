/** Compares two bundled contracts: prepare both, detect the changes, judge each. */
import type { JsonObject } from '../contract-model/document.ts';
import { applyAccepted, type AcceptedEntry } from './accepted.ts';
import { classifyAll, type ClassifiedChange, type Contracts, type Level } from './classify.ts';
import { detectChanges } from './detect.ts';
import { prepareForDiff } from './prepare.ts';

export interface Comparison {
  changes: ClassifiedChange[];
  /** Accepted-breaking-change entries that matched nothing (only when `accepted` was given). */
  unusedAccepted: AcceptedEntry[];
  /** The semantic-version part a release of these changes must raise; `none` when nothing changed. */
  level: Level | 'none';
}

/** `accepted`: the breaking changes made on purpose (accepted.ts), judged as minor with their reason. */
export async function compareContracts(before: JsonObject, after: JsonObject, accepted: readonly AcceptedEntry[] = []): Promise<Comparison> {
  return comparePrepared({ before: await prepareForDiff(before), after: await prepareForDiff(after) }, accepted);
}

/** The same, on contracts prepared already (a review compares the working one with two others), and their changes. */
export function comparePrepared(
  prepared: Contracts, accepted: readonly AcceptedEntry[] = [], detected = detectChanges(prepared.before, prepared.after),
): Comparison {
  const { changes, unused } = applyAccepted(classifyAll(detected, prepared), accepted);
  return { changes, unusedAccepted: unused, level: highestLevel(changes) };
}

/** Breaking changes nobody accepted: what fails the gate. */
export const unacceptedBreaking = (changes: readonly ClassifiedChange[]): ClassifiedChange[] =>
  changes.filter((change) => change.category === 'breaking' && change.accepted === undefined);

const levels: Level[] = ['major', 'minor', 'patch'];

export function highestLevel(changes: readonly ClassifiedChange[]): Level | 'none' {
  return levels.find((level) => changes.some((change) => change.level === level)) ?? 'none';
}
