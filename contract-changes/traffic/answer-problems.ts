/**
 * Where a problem the response check found is: its status, a header, or a field of the body. The check words each
 * problem for a person (contract-model/response-validator.ts, headers-check.ts, schema-errors.ts: "body/payload/x:
 * must be string", "required header x-request-id is missing"); this reads the place back from those words, so that
 * a problem can be set beside the change that made it one. A wording it does not know is a problem of the whole
 * answer.
 */
import type { Problem } from './exchange-check.ts';

const places: { pattern: RegExp; place: (match: RegExpExecArray) => Pick<Problem, 'in' | 'field'> }[] = [
  { pattern: /^status \S+ is not documented/, place: () => ({ in: 'status', field: '' }) },
  { pattern: /^required header (\S+) is missing/, place: (match) => ({ in: 'header', field: `/${match[1]!}` }) },
  { pattern: /^header (\S+) "/, place: (match) => ({ in: 'header', field: `/${match[1]!}` }) },
  { pattern: /^content type \S+ is not documented/, place: () => ({ in: 'header', field: '/content-type' }) },
  { pattern: /^body(\/[^:]*)?: /, place: (match) => ({ in: 'body', field: match[1] ?? '' }) },
  { pattern: /body/, place: () => ({ in: 'body', field: '' }) },
];

export function locateAnswerProblem(message: string): Problem {
  for (const { pattern, place } of places) {
    const match = pattern.exec(message);
    if (match) return { ...place(match), message };
  }
  return { in: 'answer', field: '', message };
}
