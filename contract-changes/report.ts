/** The gate's words: a report a reviewer can act on, and the changelog's Markdown. */
import type { Category, ClassifiedChange } from './classify.ts';

function where(change: ClassifiedChange): string {
  const { scope, part, field } = change.location;
  return [scope, part, field].filter((piece) => piece !== '').join(' › ');
}

/** Plain text for a terminal or a CI log: where, what, why, and the JSON Pointer to look at. */
export function formatBreakingReport(changes: readonly ClassifiedChange[], against: string): string {
  const breaking = changes.filter((change) => change.category === 'breaking');
  if (breaking.length === 0) return `No breaking change against ${against}.`;
  const lines = [`${breaking.length} breaking change${breaking.length === 1 ? '' : 's'} against ${against}:`, ''];
  for (const change of breaking) {
    lines.push(`✖ ${where(change)}`, `    ${change.what}`, `    why: ${change.why ?? ''}`, `    at ${change.location.pointer}`, '');
  }
  lines.push(
    'A partner integration built on the released contract breaks on each of these. Within v1 the contract only',
    'changes compatibly (see "Versioning and deprecation" in its description): make the change compatible (an',
    'optional field instead of a required one, a new operation beside the old one), or deprecate and keep the old.',
  );
  return lines.join('\n');
}

const groups: { category: Category; heading: string }[] = [
  { category: 'breaking', heading: 'Breaking' },
  { category: 'added', heading: 'Added' },
  { category: 'changed', heading: 'Changed' },
  { category: 'deprecated', heading: 'Deprecated' },
];

/** Markdown list items grouped by category under `###` headings; one line per distinct change. */
export function formatChangelogGroups(changes: readonly ClassifiedChange[]): string {
  const sections: string[] = [];
  for (const { category, heading } of groups) {
    const items = [...new Set(changes.filter((change) => change.category === category).map(changelogItem))];
    if (items.length > 0) sections.push(`### ${heading}\n\n${items.join('\n')}`);
  }
  return sections.join('\n\n');
}

function changelogItem(change: ClassifiedChange): string {
  const { scope, part, field } = change.location;
  const detail = [part, field === '' ? '' : `\`${field}\``].filter((piece) => piece !== '').join(' ');
  const why = change.category === 'breaking' && change.why !== undefined ? ` (${change.why})` : '';
  return `- **${scope}**${detail === '' ? '' : `, ${detail}`}: ${change.what}${why}.`;
}
