/**
 * The report for a terminal or a CI log: the verdict, then each case by group, with what happened; a case that warns
 * also says what the contract expects, and one that failed shows besides what was sent and what came back (the other
 * formats show every exchange).
 */
import type { ReceiverGrade } from '../report-types.ts';
import { boundsLine, exchangeText, headingLine, levelWord, outcomeMarks, verdictLine } from './words.ts';

const indent = (text: string, by: string) => text.split('\n').map((line) => `${by}${line}`).join('\n');

export function formatText(grade: ReceiverGrade): string {
  const lines = [headingLine(grade), verdictLine(grade), boundsLine(grade)];
  if (grade.stopped !== null) lines.push(grade.stopped);
  let group = '';
  for (const graded of grade.cases) {
    if (graded.group !== group) {
      group = graded.group;
      lines.push('', group);
    }
    lines.push(`  ${outcomeMarks[graded.outcome]} ${graded.id}: ${graded.title} [${levelWord(graded)}]`, `      ${graded.observation}`);
    if (graded.outcome === 'warning') lines.push(`      expected: ${graded.expectation}`);
    if (graded.outcome === 'failed') lines.push(`      expected: ${graded.expectation}`, ...graded.exchanges.map((exchange) => indent(exchangeText(exchange), '      ')));
  }
  return lines.join('\n');
}
