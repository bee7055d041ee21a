/** Compares two bundled contracts: prepare both, detect the changes, judge each. */
import type { JsonObject } from '../contract-model/document.ts';
import { classifyAll, type ClassifiedChange, type Level } from './classify.ts';
import { detectChanges } from './detect.ts';
import { prepareForDiff } from './prepare.ts';

export interface Comparison {
  changes: ClassifiedChange[];
  /** The semantic-version part a release of these changes must raise; `none` when nothing changed. */
  level: Level | 'none';
}

export async function compareContracts(before: JsonObject, after: JsonObject): Promise<Comparison> {
  const prepared = { before: await prepareForDiff(before), after: await prepareForDiff(after) };
  const changes = classifyAll(await detectChanges(prepared.before, prepared.after), prepared);
  return { changes, level: highestLevel(changes) };
}

const levels: Level[] = ['major', 'minor', 'patch'];

export function highestLevel(changes: readonly ClassifiedChange[]): Level | 'none' {
  return levels.find((level) => changes.some((change) => change.level === level)) ?? 'none';
}
