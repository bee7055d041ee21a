/** What Ajv found wrong with a value, as lines a person reads in a log, a journal or a failed test. */
import type { ErrorObject } from 'ajv';

// With allErrors, a page of a hundred broken items gives hundreds of errors: the first few say what is wrong.
const shown = 5;

/** One line per error, each starting with `subject` and the JSON Pointer of the offending value. */
export function describeSchemaErrors(subject: string, errors: readonly ErrorObject[] | null | undefined): string[] {
  const all = errors ?? [];
  const lines = all.slice(0, shown).map((error) => {
    // Ajv's own message does not name the property it refuses.
    const property = error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : '';
    return `${subject}${error.instancePath}: ${error.message ?? error.keyword}${property}`;
  });
  if (all.length > shown) lines.push(`${subject}: … and ${all.length - shown} more`);
  return lines;
}
