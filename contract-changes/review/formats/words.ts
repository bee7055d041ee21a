/** The review's words, shared by its formats: what an edit did, the base, the verdict in one sentence. */
import { plural } from '../../entries.ts';
import type { Action, Review, ReviewedChange } from '../review.ts';

export const actionNames: Record<Action, string> = { added: 'Added', changed: 'Changed', deprecated: 'Deprecated', removed: 'Removed' };

export function baseName(review: Review): string {
  return `${review.base.ref} (${review.base.commit.slice(0, 12)})`;
}

export function verdictSentence(review: Review): string {
  if (review.release === undefined) return 'No release in releases/ to compare with.';
  if (!review.breaksRelease) return `Compatible with release ${review.release}: no partner built on it breaks.`;
  const brought = review.changes.filter((change) => change.breaksRelease).length;
  const atBase = review.breaksAtBase.length === 0 ? '' : `; ${review.breaksAtBase.length} more were there before it`;
  return `Breaks release ${review.release}: this change brings ${plural(brought, 'breaking change')}${atBase}.`;
}

/** The changes, those that break the latest release first: the order every format lists them in. */
export function breaksFirst(review: Review): ReviewedChange[] {
  return [...review.changes.filter((change) => change.breaksRelease), ...review.changes.filter((change) => !change.breaksRelease)];
}

