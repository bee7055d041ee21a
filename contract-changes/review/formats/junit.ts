/**
 * The review as JUnit XML, for CI that shows test reports: one test case per change, lint finding and example,
 * failing for each break of the latest release this change brings, each lint finding (the lint must report
 * nothing) and each example that no longer validates.
 */
import type { Review } from '../review.ts';
import { actionNames, partOf, placeText, verdictSentence } from './words.ts';

interface Case {
  classname: string;
  name: string;
  file: string;
  line: number;
  failure?: { message: string; text: string };
}

export function formatJunit(review: Review): string {
  const shown = new Set(review.changes.filter((change) => change.breaksRelease).map((change) => change.location.pointer));
  const suites: [string, Case[]][] = [
    [`breaks of release ${review.release ?? '(none)'}`, review.introducedBreaks.filter((change) => !shown.has(change.location.pointer)).map((change) => ({
      classname: change.location.scope, name: `${partOf(change)}: ${change.what}`, ...change.place,
      failure: { message: change.what, text: `${change.why ?? ''}\nat ${placeText(change.place)}` },
    }))],
    ['what changed', review.changes.map((change) => ({
      classname: change.location.scope,
      name: `${actionNames[change.action]} ${partOf(change)}: ${change.what}`,
      ...change.place,
      ...(change.breaksRelease ? { failure: { message: `${verdictSentence(review)} ${change.what}`, text: `${change.why ?? ''}\nat ${placeText(change.place)}` } } : {}),
    }))],
    ['lint findings introduced', review.lint.map((finding) => ({
      classname: `${finding.tool} ${finding.rule}`, name: `${finding.file}:${finding.line} ${finding.message}`, file: finding.file, line: finding.line,
      failure: { message: finding.message, text: `${finding.severity} ${finding.tool} ${finding.rule} at ${finding.file}:${finding.line}` },
    }))],
    ['examples that no longer validate', review.examples.map((failure) => ({
      classname: failure.scope, name: failure.pointer, ...failure.place,
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
      if (entry.failure === undefined) {
        lines.push(`${opening}/>`);
      } else {
        lines.push(`${opening}>`, `      <failure message="${attribute(entry.failure.message)}">${text(entry.failure.text)}</failure>`, '    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n');
}

const text = (value: string): string =>
  value.replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character]!).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

const attribute = (value: string): string => text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;');
