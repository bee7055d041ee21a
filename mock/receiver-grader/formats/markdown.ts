/**
 * The report as Markdown (a CI job's summary, a pull request's comment): the verdict, a table of every case, and
 * under it, for each case, what was expected and every exchange, folded.
 */
import type { GradedCase, ReceiverGrade } from '../report-types.ts';
import { boundsLine, exchangeText, headingLine, levelWord, outcomeMarks, verdictLine } from './words.ts';

/** Text in a table cell: no line break, no pipe that would end it. */
const cell = (text: string) => text.replaceAll('|', '\\|').replace(/\s*\n\s*/g, ' ');

export function formatMarkdown(grade: ReceiverGrade): string {
  const lines = [`## ${headingLine(grade)}`, '', `**${verdictLine(grade)}**`, '', boundsLine(grade)];
  if (grade.stopped !== null) lines.push('', `> ${grade.stopped}`);
  lines.push('', '| | Case | Group | Level | What happened |', '|---|---|---|---|---|');
  for (const graded of grade.cases) lines.push(`| ${outcomeMarks[graded.outcome]} ${graded.outcome} | \`${graded.id}\` ${cell(graded.title)} | ${graded.group} | ${levelWord(graded)} | ${cell(graded.observation)} |`);
  lines.push('', '### What was sent and what came back');
  for (const graded of grade.cases) lines.push('', ...details(graded));
  return lines.join('\n');
}

function details(graded: GradedCase): string[] {
  const open = graded.outcome === 'failed' || graded.outcome === 'warning' ? ' open' : '';
  // A fence one backtick longer than any run of them in the bodies, so that no body closes it.
  const longest = Math.max(2, ...graded.exchanges.map((exchange) => Math.max(0, ...[...exchangeText(exchange).matchAll(/`+/g)].map((run) => run[0].length))));
  const fence = '`'.repeat(longest + 1);
  return [
    `<details${open}><summary>${outcomeMarks[graded.outcome]} <code>${graded.id}</code>: ${escapeHtml(graded.title)}</summary>`,
    '',
    `Expected: ${graded.expectation}`,
    '',
    ...(graded.exchanges.length === 0 ? ['Nothing was sent.'] : [fence, ...graded.exchanges.map(exchangeText), fence]),
    '',
    '</details>',
  ];
}

const escapeHtml = (text: string) => text.replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character]!);
