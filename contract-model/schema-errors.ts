/** What Ajv found wrong with a value, as lines a person reads in a log, a journal or a failed test. */
import type { ErrorObject } from 'ajv';

// With allErrors, a page of a hundred broken items gives hundreds of errors: the first few say what is wrong.
const shown = 5;

/**
 * One line per error, each starting with `subject` and the JSON Pointer of the offending value. `more` says the
 * errors given are not all there were (a check lists a bounded number), so the count of the rest is a floor.
 */
export function describeSchemaErrors(subject: string, errors: readonly ErrorObject[] | null | undefined, more = false): string[] {
  const all = errors ?? [];
  const lines: string[] = [];
  for (const error of all.slice(0, shown)) {
    // Ajv's own message does not name the property it refuses.
    const property = error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
    lines.push(`${subject}${error.instancePath}: ${error.message ?? error.keyword}${property}`);
  }
  if (all.length > shown || more) lines.push(`${subject}: … and ${more ? 'over ' : ''}${all.length - shown} more`);
  return lines;
}
