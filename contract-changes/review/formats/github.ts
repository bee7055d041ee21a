/**
 * The review as GitHub Actions workflow commands: each change, lint finding and example an annotation on its file
 * and line under openapi/ (`::error` for a break of the latest release this change brings, a lint finding of
 * error severity and an example that no longer validates; `::warning` for other findings; `::notice` otherwise).
 */
import type { Review } from '../review.ts';
import { actionNames, partOf, verdictSentence } from './words.ts';

interface Annotation {
  level: 'error' | 'warning' | 'notice';
  file: string;
  line: number;
  title: string;
  message: string;
}

export function formatGithub(review: Review): string {
  const shown = new Set(review.changes.filter((change) => change.breaksRelease).map((change) => change.location.pointer));
  const breaks = [...review.changes.filter((change) => change.breaksRelease), ...review.introducedBreaks.filter((change) => !shown.has(change.location.pointer))];
  const annotations: Annotation[] = [
    ...breaks.map((change): Annotation => ({
      level: 'error', ...change.place, title: `Breaks release ${review.release ?? ''}: ${change.location.scope}`,
      message: `${prefixed(partOf(change), change.what)} — ${change.why ?? ''}`,
    })),
    ...review.changes.filter((change) => !change.breaksRelease).map((change): Annotation => ({
      level: 'notice', ...change.place, title: `${actionNames[change.action]}: ${change.location.scope}`, message: prefixed(partOf(change), change.what),
    })),
    ...review.lint.map((finding): Annotation => ({
      level: finding.severity, file: finding.file, line: finding.line, title: `${finding.tool} ${finding.rule}`, message: finding.message,
    })),
    ...review.examples.map((failure): Annotation => ({
      level: 'error', ...failure.place, title: `Example no longer valid: ${failure.scope}`, message: `${failure.pointer}: ${failure.problems.join('; ')}`,
    })),
  ];
  const lines = merged(annotations).map(command);
  lines.push(`::${review.breaksRelease ? 'error' : 'notice'} title=Contract review::${data(verdictSentence(review))}`);
  return lines.join('\n');
}

/** A shared schema's change is found at each use, all written on one line: one annotation says it, counting the uses. */
function merged(annotations: readonly Annotation[]): Annotation[] {
  const groups = new Map<string, Annotation[]>();
  for (const annotation of annotations) {
    const key = [annotation.level, annotation.file, annotation.line, annotation.message].join('\u0000');
    groups.set(key, [...(groups.get(key) ?? []), annotation]);
  }
  return [...groups.values()].map(([first, ...others]) => {
    const uses = new Set(others.map((other) => other.title).filter((title) => title !== first!.title)).size;
    return uses === 0 ? first! : { ...first!, title: `${first!.title} (and ${uses} more)` };
  });
}

const prefixed = (part: string, what: string): string => (part === '' ? what : `${part}: ${what}`);

function command({ level, file, line, title, message }: Annotation): string {
  return `::${level} file=${property(file)},line=${line},title=${property(title)}::${data(message)}`;
}

const data = (value: string): string => value.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const property = (value: string): string => data(value).replaceAll(':', '%3A').replaceAll(',', '%2C');
