/** The review as Markdown, fit for a pull-request comment (GitHub and GitLab render it alike). */
import type { SourcePlace } from '../../source-lines.ts';
import type { Review } from '../review.ts';
import { actionNames, baseName, byScope, partOf, placeText, verdictSentence, whereOf } from './words.ts';

export interface MarkdownOptions {
  /** Where the files can be read on the web (`https://github.com/o/r/blob/<sha>/`): each place links there. */
  sourceUrl?: string;
}

/** A comment has room for about 65,000 characters; past this many changes the rest is counted, not listed. */
const maxListed = 150;

export function formatMarkdown(review: Review, { sourceUrl }: MarkdownOptions = {}): string {
  const at = (place: SourcePlace): string => {
    const text = `\`${placeText(place)}\``;
    return sourceUrl === undefined ? text : `[${text}](${sourceUrl}${place.file}#L${place.line})`;
  };
  const mark = review.breaksRelease ? '✖' : '✔';
  const lines = ['## Contract review', '', `**${mark} ${escape(verdictSentence(review))}**`, '', `Compared with ${escape(baseName(review))}.`];
  if (review.introducedBreaks.length > 0) {
    lines.push('', '### Breaking changes this change brings', '', '| Where | What | Why | Source |', '|---|---|---|---|');
    for (const change of review.introducedBreaks) {
      lines.push(`| ${escape(whereOf(change))} | ${escape(change.what)} | ${escape(change.why ?? '')} | ${at(change.place)} |`);
    }
  }
  lines.push('', '### What changed', '');
  if (review.changes.length === 0) lines.push('Nothing a partner sees.');
  let listed = 0;
  for (const [scope, changes] of byScope(review.changes)) {
    if (listed >= maxListed) break;
    lines.push(`**${escape(scope)}**`, '');
    for (const change of changes.slice(0, maxListed - listed)) {
      const part = partOf(change);
      lines.push(`- ${change.breaksRelease ? '✖ ' : ''}**${actionNames[change.action]}** ${escape(part === '' ? '' : `${part}: `)}${escape(change.what)} — ${at(change.place)}`);
      listed += 1;
    }
    lines.push('');
  }
  if (review.changes.length > listed) lines.push(`… and ${review.changes.length - listed} more: \`npm run review\` lists them all.`, '');
  lines.push('### Lint findings introduced', '');
  if (review.lint.length === 0) lines.push('None.');
  for (const finding of review.lint) lines.push(`- **${finding.severity}** ${finding.tool} \`${finding.rule}\`: ${escape(finding.message)} — ${at(finding)}`);
  lines.push('', '### Examples that no longer validate', '');
  if (review.examples.length === 0) lines.push('None.');
  for (const failure of review.examples) {
    lines.push(`- **${escape(failure.scope)}** \`${failure.pointer}\` — ${at(failure.place)}`, ...failure.problems.map((problem) => `  - ${escape(problem)}`));
  }
  return lines.join('\n').trimEnd();
}

/** Text from the contract read as text, never as Markdown or HTML. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]<>|]/g, '\\$&');
}
