/** The review's words, shared by its formats: where a change is, what it did, the verdict in one sentence. */
import type { SourcePlace } from '../../source-lines.ts';
import type { Action, Review, ReviewedChange } from '../review.ts';

export const actionNames: Record<Action, string> = { added: 'Added', changed: 'Changed', deprecated: 'Deprecated', removed: 'Removed' };

/** `request body › /phoneNumber`: the part of the operation and the field, without the operation. */
export function partOf(change: ReviewedChange): string {
  const { part, field } = change.location;
  return [part, field].filter((piece) => piece !== '').join(' › ');
}

/** `POST /v1/partner/customers (createCustomer) › request body › /phoneNumber` */
export function whereOf(change: ReviewedChange): string {
  return [change.location.scope, partOf(change)].filter((piece) => piece !== '').join(' › ');
}

export const placeText = (place: SourcePlace): string => `${place.file}:${place.line}`;

export function baseName(review: Review): string {
  return `${review.base.ref} (${review.base.commit.slice(0, 12)})`;
}

export function verdictSentence(review: Review): string {
  if (review.release === undefined) return 'No release in releases/ to compare with.';
  if (!review.breaksRelease) return `Compatible with release ${review.release}: no partner built on it breaks.`;
  const atBase = review.breaksAtBase === 0 ? '' : `; ${review.breaksAtBase} more were there before it`;
  return `Breaks release ${review.release}: this change brings ${plural(review.introducedBreaks.length, 'breaking change')}${atBase}.`;
}

/** The changes by operation or webhook (their scope), in the order they were found. */
export function byScope<T extends { location: { scope: string } }>(changes: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const change of changes) groups.set(change.location.scope, [...(groups.get(change.location.scope) ?? []), change]);
  return groups;
}

export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
