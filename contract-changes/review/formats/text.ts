/** The review as plain text, for a terminal. */
import type { Review } from '../review.ts';
import { actionNames, baseName, byScope, partOf, placeText, plural, verdictSentence, whereOf } from './words.ts';

export function formatText(review: Review): string {
  const lines = [`Contract review: openapi/ against ${baseName(review)}`, '', verdictSentence(review)];
  for (const change of review.introducedBreaks) {
    lines.push(`  ✖ ${whereOf(change)}`, `      ${change.what}`, `      why: ${change.why ?? ''}`, `      at ${placeText(change.place)}`);
  }
  lines.push('', review.changes.length === 0 ? 'What changed: nothing a partner sees.' : `What changed (${plural(review.changes.length, 'change')}):`);
  for (const [scope, changes] of byScope(review.changes)) {
    lines.push(`  ${scope}`);
    for (const change of changes) {
      const mark = change.breaksRelease ? '✖' : ' ';
      const part = partOf(change);
      lines.push(`   ${mark} ${actionNames[change.action].padEnd(10)} ${part === '' ? '' : `${part}: `}${change.what}  (${placeText(change.place)})`);
    }
  }
  lines.push('', review.lint.length === 0 ? 'Lint findings introduced: none.' : `Lint findings introduced (${review.lint.length}):`);
  for (const finding of review.lint) lines.push(`  ${finding.severity} ${finding.tool} ${finding.rule}: ${finding.message}  (${finding.file}:${finding.line})`);
  lines.push('', review.examples.length === 0 ? 'Examples that no longer validate: none.' : `Examples that no longer validate (${review.examples.length}):`);
  for (const failure of review.examples) {
    lines.push(`  ${failure.scope}: ${failure.pointer}  (${placeText(failure.place)})`, ...failure.problems.map((problem) => `      ${problem}`));
  }
  return lines.join('\n');
}
