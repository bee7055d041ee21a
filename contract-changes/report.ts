/** The gate's words: a report a reviewer can act on, and the changelog's Markdown. */
import type { Category, ClassifiedChange } from './classify.ts';
import { unacceptedBreaking } from './compare.ts';
import { placeText, plural, statementText, titleOf, toEntries, type PlacedChange } from './entries.ts';

/**
 * Plain text for a terminal or a CI log: each edit that breaks, once, at its file and line (`place` finds it), with
 * where it applies, why it breaks, and the JSON Pointer of one of its places (what an accepted break names).
 */
export function formatBreakingReport(
  changes: readonly ClassifiedChange[], against: string, place: (change: ClassifiedChange, breaks: boolean) => PlacedChange,
): string {
  const accepted = acceptedByReason(changes);
  const acceptedLines = [...accepted].map(([reason, places]) => `  ✔ ${plural(places.length, 'place')}: ${reason}`);
  const acceptedNote = accepted.size === 0 ? [] : ['', 'Breaking changes accepted on purpose (contract-changes/accepted-breaking-changes.yaml):', ...acceptedLines];
  const breaking = toEntries(unacceptedBreaking(changes).map((change) => place(change, true)));
  if (breaking.length === 0) return [`No breaking change against ${against}.`, ...acceptedNote].join('\n');
  const lines = [`${plural(breaking.length, 'breaking change')} against ${against}:`, ''];
  for (const entry of breaking) {
    lines.push(`✖ ${titleOf(entry)}  (${placeText(entry.place)})`);
    for (const { why, uses, ...statement } of entry.statements) {
      const more = uses.length > 1 ? ` (and ${plural(uses.length - 1, 'other place')})` : '';
      lines.push(`    ${statementText({ ...statement, uses })}`, `    why: ${why ?? ''}`, `    at ${uses[0]!.pointer}${more}`);
    }
    lines.push('');
  }
  lines.push(
    'A partner integration built on the released contract breaks on each of these. Within v1 the contract only',
    'changes compatibly (see "Versioning and deprecation" in its description): make the change compatible (an',
    'optional field instead of a required one, a new operation beside the old one), or deprecate and keep the old.',
    'A break made on purpose (a security fix, say) is listed, with its reason, in contract-changes/accepted-breaking-changes.yaml.',
    ...acceptedNote,
  );
  return lines.join('\n');
}

/** The accepted breaking changes, by the reason they were accepted for. */
function acceptedByReason(changes: readonly ClassifiedChange[]): Map<string, ClassifiedChange[]> {
  const byReason = new Map<string, ClassifiedChange[]>();
  for (const change of changes) {
    if (change.accepted === undefined) continue;
    byReason.set(change.accepted, [...(byReason.get(change.accepted) ?? []), change]);
  }
  return byReason;
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
    const items = changelogItems(changes.filter((change) => change.category === category && change.accepted === undefined));
    if (items.length > 0) sections.push(`### ${heading}\n\n${items.join('\n')}`);
    if (category === 'breaking') sections.push(...acceptedSection(changes));
  }
  return sections.join('\n\n');
}

/** Breaking changes made on purpose within v1: one item per reason, with the places it concerns. */
function acceptedSection(changes: readonly ClassifiedChange[]): string[] {
  const byReason = acceptedByReason(changes);
  if (byReason.size === 0) return [];
  const items = [...byReason].map(([reason, places]) => {
    const scopes = [...new Set(places.map((change) => `**${change.location.scope}**`))];
    return `- ${reason} Concerns ${places.length} place${places.length === 1 ? '' : 's'}, in ${scopes.join(', ')}.`;
  });
  return [`### Breaking, accepted within v1\n\n${items.join('\n')}`];
}

/** One item per distinct change; the same change in several places (a shared schema) is one item naming them. */
function changelogItems(changes: readonly ClassifiedChange[]): string[] {
  const byWhat = new Map<string, ClassifiedChange[]>();
  for (const change of changes) byWhat.set(change.what, [...(byWhat.get(change.what) ?? []), change]);
  return [...byWhat].map(([what, places]) => {
    const why = places[0]!.category === 'breaking' && places[0]!.why !== undefined ? ` (${places[0]!.why})` : '';
    const named = [...new Set(places.map(placeName))];
    if (named.length === 1) return `- ${named[0]}: ${what}${why}.`;
    const shown = named.slice(0, maxPlacesNamed).join('; ');
    const more = named.length > maxPlacesNamed ? `; and ${named.length - maxPlacesNamed} more` : '';
    return `- ${what}${why}, in ${named.length} places: ${shown}${more}.`;
  });
}

const maxPlacesNamed = 4;

function placeName(change: ClassifiedChange): string {
  const { scope, part, field } = change.location;
  const detail = [part, field === '' ? '' : `\`${field}\``].filter((piece) => piece !== '').join(' ');
  return `**${scope}**${detail === '' ? '' : `, ${detail}`}`;
}
