/** The review as Markdown, fit for a pull-request comment (GitHub and GitLab render it alike). */
import type { Review, ReviewedChange } from '../review.ts';
import { appliesTo, placeText, statementWithWhy, titleOf, type Place } from '../../entries.ts';
import { changeTrafficTexts, documentationHeading, groupText, hasDocumentation, newlyFailingText, notCheckedText, patchText, trafficSourcesText } from './traffic-words.ts';
import { actionNames, baseName, breaksFirst, verdictSentence } from './words.ts';

export interface MarkdownOptions {
  /** Where the files can be read on the web (`https://github.com/o/r/blob/<sha>/`): each place links there. */
  sourceUrl?: string;
  /** The review as a page, written in the same run: the comment says where it is. */
  page?: ReviewPage;
}

export interface ReviewPage {
  /** Its file, beside this one: `contract-review.html`. */
  file: string;
  /** It links to the proposed contract's reference docs, built beside it. */
  withDocs: boolean;
  /** Where CI keeps the files the run wrote (the job's artifacts); without it, they are where the run wrote them. */
  url?: string;
}

/** A comment has room for about 65,000 characters; past this many changes the rest is counted, not listed. */
const maxListed = 150;

export function formatMarkdown(review: Review, { sourceUrl, page }: MarkdownOptions = {}): string {
  const at = (place: Place): string => {
    const text = `\`${placeText(place)}\``;
    return sourceUrl === undefined ? text : `[${text}](${sourceUrl}${place.file}#L${place.line})`;
  };
  const entry = (change: ReviewedChange): string[] => [
    `- ${change.breaksRelease ? '✖ ' : ''}**${actionNames[change.action]}** ${escape(titleOf(change))} — ${at(change.place)}`,
    ...change.statements.map((statement) => `  - ${statement.breaksRelease ? '✖ ' : ''}${escape(statementWithWhy(statement))}`),
    ...changeTrafficTexts(review, change).map((text) => `  - recorded traffic: ${escape(text)}`),
  ];
  const mark = review.breaksRelease ? '✖' : '✔';
  const lines = ['## Contract review', '', `**${mark} ${escape(verdictSentence(review))}**`, '', `Compared with ${escape(baseName(review))}.`];
  lines.push('', '### What changed', '');
  if (review.changes.length === 0) lines.push('Nothing a partner sees.');
  const listed = breaksFirst(review).slice(0, maxListed);
  for (const change of listed) lines.push(...entry(change));
  if (review.changes.length > listed.length) lines.push('', `… and ${review.changes.length - listed.length} more: \`npm run review\` lists them all.`);
  if (review.breaksAtBase.length > 0) {
    lines.push('', `### Breaks of release ${escape(review.release ?? '')} already there at the base`, '');
    for (const change of review.breaksAtBase.slice(0, maxListed)) lines.push(...entry(change));
  }
  lines.push('', '### Lint findings introduced', '');
  if (review.lint.length === 0) lines.push('None.');
  for (const finding of review.lint) lines.push(`- **${finding.severity}** ${finding.tool} \`${finding.rule}\`: ${escape(finding.message)} — ${at(finding)}`);
  lines.push('', '### Examples that no longer validate', '');
  if (review.examples.length === 0) lines.push('None.');
  for (const failure of review.examples) {
    lines.push(`- ${at(failure.place)}, in ${escape(appliesTo(failure.uses))}`, ...failure.problems.map((problem) => `  - ${escape(problem)}`));
  }
  lines.push(...trafficSection(review));
  lines.push('', '---', '', pageSentence(review, page));
  return lines.join('\n').trimEnd();
}

/** The section of recorded traffic (`--traffic FILE`): where it came from, what failed the base already. */
function trafficSection({ traffic }: Review): string[] {
  if (traffic === undefined) return [];
  const lines = ['', '### Recorded traffic', '', `${escape(trafficSourcesText(traffic))}. ${escape(newlyFailingText(traffic))}`];
  if (traffic.unexplained.length > 0) lines.push('', 'Refused by the proposal where no single change explains it:', '', ...traffic.unexplained.map((group) => `- ${escape(groupText(group))}`));
  lines.push('', traffic.failedBase.length === 0 ? 'Failing the base contract already: none.' : 'Failing the base contract already (not blamed on this change):');
  if (traffic.failedBase.length > 0) lines.push('', ...traffic.failedBase.slice(0, maxListed).map((group) => `- ${escape(groupText(group))}`));
  const unchecked = notCheckedText(traffic);
  if (unchecked !== undefined) lines.push('', escape(unchecked));
  if (hasDocumentation(traffic)) {
    lines.push('', `### ${documentationHeading}`, '', ...traffic.documentation.patches.map((patch) => `- ${escape(patchText(patch))}`), ...traffic.documentation.unplaced.map((text) => `- ${escape(text)}`));
    if (traffic.documentation.diff !== '') lines.push('', 'The smallest change to `openapi/` that would document it, for a designer to apply (`git apply`) or not:', '', '```diff', traffic.documentation.diff.trimEnd(), '```');
  }
  return lines;
}

/** Where the review as a page is, and what it adds: said plainly, whether CI keeps it at an address or not. */
function pageSentence(review: Review, page: ReviewPage | undefined): string {
  const count = review.operations.length;
  const kinds = review.operations.some((view) => view.scope.startsWith('webhook ')) ? 'operations and webhooks' : 'operations';
  const shown = [
    ...(count === 0 ? [] : [count === 1 ? 'the one operation this change touches as its docs read before and after, side by side' : `the ${count} ${kinds} this change touches as their docs read before and after, side by side`]),
    ...(page === undefined || page.withDocs ? ["the proposed contract's reference docs"] : []),
  ];
  const what = shown.length === 0 ? '' : `, with ${shown.join(', and ')}`;
  if (page === undefined) return `\`npm run review -- --out DIR\` also writes this review as a page${what}.`;
  const where = page.url === undefined ? 'in the folder this review was written to (in CI, among the job\'s artifacts)' : `among this job's artifacts: ${page.url}`;
  return `The review as a page${what}${what === '' ? '' : ','} is \`${page.file}\` ${where}.`;
}

/** Text from the contract read as text, never as Markdown or HTML. */
function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]<>|]/g, '\\$&');
}
