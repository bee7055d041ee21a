/**
 * The report as JUnit XML, which CI systems show as test results: a test suite per group, a test case per case. A
 * failed case is a failure (its observation the message, what was expected and every exchange the text); a skipped
 * one is skipped; a warning passes (the contract states it as a `should`) with its observation in its output.
 */
import type { GradedCase, ReceiverGrade } from '../report-types.ts';
import { caseGroups } from '../battery.ts';
import { exchangeText, headingLine, verdictLine } from './words.ts';

export function formatJunit(grade: ReceiverGrade): string {
  const count = (cases: readonly GradedCase[], outcome: GradedCase['outcome']) => cases.filter((graded) => graded.outcome === outcome).length;
  const seconds = (cases: readonly GradedCase[]) => (cases.reduce((sum, graded) => sum + graded.exchanges.reduce((total, exchange) => total + exchange.durationMs, 0), 0) / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attribute(headingLine(grade))}" tests="${grade.cases.length}" failures="${grade.totals.failed}" skipped="${grade.totals.skipped}" time="${(grade.durationMs / 1000).toFixed(3)}">`,
  ];
  for (const group of caseGroups) {
    const cases = grade.cases.filter((graded) => graded.group === group);
    if (cases.length === 0) continue;
    lines.push(`  <testsuite name="${group}" tests="${cases.length}" failures="${count(cases, 'failed')}" skipped="${count(cases, 'skipped')}" time="${seconds(cases)}">`);
    for (const graded of cases) lines.push(...testCase(graded));
    lines.push('  </testsuite>');
  }
  lines.push(`  <!-- ${comment(verdictLine(grade))} -->`, '</testsuites>');
  return lines.join('\n');
}

function testCase(graded: GradedCase): string[] {
  const time = (graded.exchanges.reduce((total, exchange) => total + exchange.durationMs, 0) / 1000).toFixed(3);
  const opening = `    <testcase classname="receiver.${graded.group}" name="${attribute(`${graded.id}: ${graded.title}`)}" time="${time}">`;
  const record = text([`Expected: ${graded.expectation}`, ...graded.exchanges.map(exchangeText)].join('\n\n'));
  const body = {
    failed: `      <failure message="${attribute(graded.observation)}">${record}</failure>`,
    skipped: `      <skipped message="${attribute(graded.observation)}"/>`,
    warning: `      <system-out>${text(`WARNING (${graded.obligation} is a should): ${graded.observation}`)}\n\n${record}</system-out>`,
    passed: `      <system-out>${text(graded.observation)}\n\n${record}</system-out>`,
  }[graded.outcome];
  return [opening, body, '    </testcase>'];
}

const text = (value: string): string =>
  value.replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character]!).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

const attribute = (value: string): string => text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;');

/** Text in an XML comment, which may not hold `--`. */
const comment = (value: string): string => text(value).replaceAll('--', '- -');
