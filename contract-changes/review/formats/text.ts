/** The review as plain text, for a terminal or a CI log. */
import type { Review, ReviewedChange } from '../review.ts';
import { appliesTo, placeText, plural, statementText, titleOf } from '../../entries.ts';
import { changeTrafficTexts, documentationHeading, groupText, hasDocumentation, newlyFailingText, notCheckedText, patchText, trafficSourcesText } from './traffic-words.ts';
import { actionNames, baseName, breaksFirst, verdictSentence } from './words.ts';

export function formatText(review: Review): string {
  const lines = [`Contract review: openapi/ against ${baseName(review)}`, '', verdictSentence(review)];
  lines.push('', review.changes.length === 0 ? 'What changed: nothing a partner sees.' : `What changed (${plural(review.changes.length, 'change')}):`);
  for (const change of breaksFirst(review)) lines.push(...changeLines(change), ...changeTrafficTexts(review, change).map((text) => `      traffic: ${text}`));
  if (review.breaksAtBase.length > 0) {
    lines.push('', `Breaks of release ${review.release ?? ''} already there at ${baseName(review)} (${review.breaksAtBase.length}):`);
    for (const change of review.breaksAtBase) lines.push(...changeLines(change));
  }
  lines.push('', review.lint.length === 0 ? 'Lint findings introduced: none.' : `Lint findings introduced (${review.lint.length}):`);
  for (const finding of review.lint) lines.push(`  ${finding.severity} ${finding.tool} ${finding.rule}: ${finding.message}  (${finding.file}:${finding.line})`);
  lines.push('', review.examples.length === 0 ? 'Examples that no longer validate: none.' : `Examples that no longer validate (${review.examples.length}):`);
  for (const failure of review.examples) {
    lines.push(`  ${placeText(failure.place)}, in ${appliesTo(failure.uses)}`, ...failure.problems.map((problem) => `      ${problem}`));
  }
  lines.push(...trafficLines(review));
  return lines.join('\n');
}

/** The section of recorded traffic: where it came from, what the proposal refuses, what failed the base already. */
function trafficLines({ traffic }: Review): string[] {
  if (traffic === undefined) return [];
  const lines = ['', `Recorded traffic: ${trafficSourcesText(traffic)}.`, `  ${newlyFailingText(traffic)}`];
  if (traffic.unexplained.length > 0) lines.push('  Refused by the proposal where no single change explains it:', ...traffic.unexplained.map((group) => `    ${groupText(group)}`));
  lines.push(traffic.failedBase.length === 0 ? '  Failing the base contract already: none.' : '  Failing the base contract already (not blamed on this change):', ...traffic.failedBase.map((group) => `    ${groupText(group)}`));
  const unchecked = notCheckedText(traffic);
  if (unchecked !== undefined) lines.push(`  ${unchecked}`);
  if (hasDocumentation(traffic)) {
    lines.push('', `${documentationHeading} (the patch that would, for a designer to apply or not):`, ...traffic.documentation.patches.map((patch) => `  ${patchText(patch)}`));
    lines.push(...traffic.documentation.unplaced.map((text) => `  ${text}`), '', ...traffic.documentation.diff.trimEnd().split('\n').map((line) => `    ${line}`));
  }
  return lines;
}

/** `✖ Changed  FormationStatus  (file:line)`, then each statement, a break with why it breaks. */
function changeLines(change: ReviewedChange): string[] {
  const mark = change.breaksRelease ? '✖' : ' ';
  const lines = [`  ${mark} ${actionNames[change.action].padEnd(10)} ${titleOf(change)}  (${placeText(change.place)})`];
  for (const statement of change.statements) {
    lines.push(`      ${statement.breaksRelease ? '✖ ' : ''}${statementText(statement)}`);
    if (statement.category === 'breaking' && statement.why !== undefined) lines.push(`        why: ${statement.why}`);
    if (statement.accepted !== undefined) lines.push(`        accepted: ${statement.accepted}`);
  }
  return lines;
}
