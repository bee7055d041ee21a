/**
 * The review as GitHub Actions workflow commands: each change an annotation at its file and line under openapi/
 * (`::error` when it breaks the latest release, `::notice` otherwise), each lint finding at its severity, each
 * example that no longer validates an `::error`, and the verdict last.
 */
import type { Review, ReviewedChange } from '../review.ts';
import { appliesTo, changeText, placeText, titleOf } from '../../entries.ts';
import { changeTrafficTexts, documentationHeading, newlyFailingText, patchText, trafficSourcesText } from './traffic-words.ts';
import { actionNames, verdictSentence } from './words.ts';

interface Annotation {
  level: 'error' | 'warning' | 'notice';
  file: string;
  line: number;
  title: string;
  message: string;
}

export function formatGithub(review: Review): string {
  const ofChange = (change: ReviewedChange, level: Annotation['level'], title: string): Annotation => ({
    level, file: change.place.file, line: change.place.line, title: `${title}: ${titleOf(change)}`, message: changeText(change),
  });
  const annotations: Annotation[] = [
    ...review.changes.filter((change) => change.breaksRelease).map((change) => ofChange(change, 'error', `Breaks release ${review.release ?? ''}`)),
    ...review.breaksAtBase.map((change) => ofChange(change, 'error', `Breaks release ${review.release ?? ''} (before this change)`)),
    ...review.changes.filter((change) => !change.breaksRelease).map((change) => ofChange(change, 'notice', actionNames[change.action])),
    ...review.lint.map((finding): Annotation => ({
      level: finding.severity, file: finding.file, line: finding.line, title: `${finding.tool} ${finding.rule}`, message: finding.message,
    })),
    // What recorded traffic says of each change, at the change's place: a warning where it refuses recorded requests or answers.
    ...review.changes.flatMap((change) => changeTrafficTexts(review, change).map((text): Annotation => ({
      level: /^(refuses|no longer allows) /.test(text) ? 'warning' : 'notice', file: change.place.file, line: change.place.line, title: `Recorded traffic: ${titleOf(change)}`, message: text,
    }))),
    ...(review.traffic?.documentation.patches ?? []).map((patch): Annotation => ({
      level: 'notice', file: patch.place.file, line: patch.place.line, title: documentationHeading, message: `${patchText(patch)}\nto document it, add:\n${patch.lines.join('\n')}`,
    })),
    ...review.examples.map((failure): Annotation => ({
      level: 'error', file: failure.place.file, line: failure.place.line, title: 'Example no longer valid',
      message: `in ${appliesTo(failure.uses)}: ${failure.problems.join('; ')}`,
    })),
  ];
  const lines = annotations.map(command);
  if (review.traffic) lines.push(`::notice title=Recorded traffic::${data(`${trafficSourcesText(review.traffic)}. ${newlyFailingText(review.traffic)}`)}`);
  lines.push(`::${review.breaksRelease ? 'error' : 'notice'} title=Contract review::${data(verdictSentence(review))}`);
  return lines.join('\n');
}

function command({ level, file, line, title, message }: Annotation): string {
  return `::${level} file=${property(file)},line=${line},title=${property(title)}::${data(message)}`;
}

const data = (value: string): string => value.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const property = (value: string): string => data(value).replaceAll(':', '%3A').replaceAll(',', '%2C');
