/**
 * The review as JUnit XML, for CI that shows test reports: one failing test case per break of the latest release
 * (those this change brings, and those there at the base, which fail the verdict too), one passing test case per
 * other change, and one failing test case per lint finding introduced and per example that no longer validates.
 */
import type { Review, ReviewedChange } from '../review.ts';
import { appliesTo, changeText, placeText, titleOf } from '../../entries.ts';
import { changeTrafficTexts, documentationHeading, groupText, patchText } from './traffic-words.ts';
import { actionNames, verdictSentence } from './words.ts';

interface Case {
  classname: string;
  name: string;
  file: string;
  line: number;
  failure?: { message: string; text: string };
  /** What a passing case says: the change in full. */
  output?: string;
}

export function formatJunit(review: Review): string {
  const breaks = review.changes.filter((change) => change.breaksRelease);
  const others = review.changes.filter((change) => !change.breaksRelease);
  const failing = (change: ReviewedChange, message: string): Case => ({
    ...testCase(change),
    failure: { message, text: `${changeText(change)}\nat ${placeText(change.place)}` },
  });
  const suites: [string, Case[]][] = [
    [`breaks of release ${review.release ?? '(none)'}`, [
      ...breaks.map((change) => failing(change, verdictSentence(review))),
      ...review.breaksAtBase.map((change) => failing(change, `There before this change: ${verdictSentence(review)}`)),
    ]],
    ['other changes', others.map((change) => ({ ...testCase(change), output: `${changeText(change)}\nat ${placeText(change.place)}` }))],
    ['lint findings introduced', review.lint.map((finding) => ({
      classname: `${finding.tool} ${finding.rule}`, name: `${finding.file}:${finding.line} ${finding.message}`, file: finding.file, line: finding.line,
      failure: { message: finding.message, text: `${finding.severity} ${finding.tool} ${finding.rule} at ${finding.file}:${finding.line}` },
    }))],
    ...trafficSuites(review),
    ['examples that no longer validate', review.examples.map((failure) => ({
      classname: appliesTo(failure.uses), name: placeText(failure.place), file: failure.place.file, line: failure.place.line,
      failure: { message: failure.problems[0] ?? 'no longer valid', text: failure.problems.join('\n') },
    }))],
  ];
  const count = (cases: Case[]) => cases.filter((entry) => entry.failure !== undefined).length;
  const all = suites.flatMap(([, cases]) => cases);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="contract review" tests="${all.length}" failures="${count(all)}">`];
  for (const [name, cases] of suites) {
    lines.push(`  <testsuite name="${attribute(name)}" tests="${cases.length}" failures="${count(cases)}">`);
    for (const entry of cases) {
      const opening = `    <testcase classname="${attribute(entry.classname)}" name="${attribute(entry.name)}" file="${attribute(entry.file)}" line="${entry.line}"`;
      if (entry.failure === undefined && entry.output === undefined) {
        lines.push(`${opening}/>`);
      } else if (entry.failure === undefined) {
        lines.push(`${opening}>`, `      <system-out>${text(entry.output!)}</system-out>`, '    </testcase>');
      } else {
        lines.push(`${opening}>`, `      <failure message="${attribute(entry.failure.message)}">${text(entry.failure.text)}</failure>`, '    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n');
}

/**
 * Recorded traffic (`--traffic FILE`): a failing case per change that refuses recorded requests or no longer allows
 * recorded answers, and per group of them no single change explains; a passing one per other change it says
 * something of. What failed the base already is the base's, not a case of this change.
 */
function trafficSuites(review: Review): [string, Case[]][] {
  const { traffic } = review;
  if (traffic === undefined) return [];
  const ofChanges = review.changes.flatMap((change): Case[] => {
    const texts = changeTrafficTexts(review, change);
    if (texts.length === 0) return [];
    const lines = traffic.byChange.get(change)?.lines ?? [];
    const refused = lines.some((line) => line.kind !== 'carries');
    const text = `${texts.join('\n')}\nat ${placeText(change.place)}`;
    return [{ ...testCase(change), ...(refused ? { failure: { message: texts[0]!, text } } : { output: text }) }];
  });
  const unexplained = traffic.unexplained.map((group): Case => ({
    classname: group.operationId ?? 'no operation', name: groupText(group), file: group.example.file, line: 1,
    failure: { message: `refused by the proposal, no single change explains it: ${groupText(group)}`, text: groupText(group) },
  }));
  const documentation = traffic.documentation.patches.map((patch): Case => ({
    classname: patch.operations.join(', '), name: patch.what, file: patch.place.file, line: patch.place.line, output: `${patchText(patch)}\nto document it, add:\n${patch.lines.join('\n')}`,
  }));
  const cases = [...ofChanges, ...unexplained];
  return [...(cases.length === 0 ? [] : [['recorded traffic', cases] as [string, Case[]]]), ...(documentation.length === 0 ? [] : [[documentationHeading, documentation] as [string, Case[]]])];
}

/** A change as a test case: named by what it did, classed by where it applies. */
function testCase(change: ReviewedChange): Case {
  const [first] = change.statements;
  return {
    classname: appliesTo(change.statements.flatMap((statement) => statement.uses)),
    name: `${actionNames[change.action]} ${titleOf(change)}: ${first!.what}`,
    file: change.place.file,
    line: change.place.line,
  };
}

const text = (value: string): string =>
  value.replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character]!).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

const attribute = (value: string): string => text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;');
