/**
 * CHANGELOG.md: an `Unreleased` section for notes written by hand, then one section per release, newest first.
 * A release moves the notes and the computed change list under its version and date.
 */

export const unreleasedHeading = '## Unreleased';
export const unreleasedPlaceholder =
  '<!-- Notes written here by hand (context, migration advice) go out with the next release, above its list of changes. -->';

const preamble = `# Changelog

Every release of the Partner Formation API contract, newest first. Versions follow semantic versioning: a
release with a new operation, property, webhook or enum value is minor, one that only edits descriptions and
examples is a patch, and a breaking change would be a new major version under a new path prefix (\`/v2\`).
Each released contract is kept in \`releases/\`; \`npm run changelog\` prints the changes not released yet.
`;

export interface ReleaseEntry {
  version: string;
  date: string;
  /** Markdown: the computed change groups, or a sentence for a first release. */
  changes: string;
}

/** The hand-written notes waiting in `Unreleased` (empty when there are none). */
export function unreleasedNotes(changelog: string): string {
  const start = changelog.indexOf(unreleasedHeading);
  if (start < 0) return '';
  const body = changelog.slice(start + unreleasedHeading.length);
  const end = body.search(/^## /m);
  return (end < 0 ? body : body.slice(0, end)).replace(unreleasedPlaceholder, '').trim();
}

/** The changelog with `entry` as its newest release and an empty `Unreleased` section. */
export function addRelease(changelog: string, entry: ReleaseEntry): string {
  const notes = unreleasedNotes(changelog);
  const firstRelease = changelog.search(/^## (?!Unreleased)/m);
  const older = firstRelease < 0 ? '' : changelog.slice(firstRelease).trimEnd();
  const section = [`## ${entry.version} — ${entry.date}`, notes, entry.changes].filter((part) => part !== '').join('\n\n');
  return `${[preamble.trimEnd(), `${unreleasedHeading}\n\n${unreleasedPlaceholder}`, section, older].filter((part) => part !== '').join('\n\n')}\n`;
}

export function releasedVersions(changelog: string): string[] {
  return [...changelog.matchAll(/^## (\d+\.\d+\.\d+) — /gm)].map((match) => match[1]!);
}
