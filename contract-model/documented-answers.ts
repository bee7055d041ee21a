/**
 * The answers the contract documents for an operation, as a forced answer can give them: each status, and under it
 * each named example of its JSON body, with the headers a real answer of that example carries, at their documented
 * example values: those the response requires, and those it sends with the example's error code
 * (`x-sent-with-error-codes`: `Retry-After` with E_IDEMPOTENCY_KEY_IN_PROGRESS). An optional header with no such
 * codes is not one an answer made now carries (`Idempotent-Replayed` is a replay's). (Every response the contract
 * documents has a body.)
 */
import { deref, type ContractDocument, type JsonObject } from './document-nodes.ts';
import type { ContractOperation } from './operations.ts';

export interface DocumentedAnswer {
  status: number;
  /** The example's name. */
  example: string;
  /** The example's value: the whole JSON body (the envelope), as documented. */
  value: unknown;
  /** The headers an answer of this example carries (see above), at their example values. */
  headers: Record<string, string>;
}

export interface OperationAnswers {
  answers: DocumentedAnswer[];
  /** Statuses documented without a JSON example (a PDF): named when a request asks for one of them. */
  withoutExample: number[];
}

export function documentedAnswers(document: ContractDocument, operation: ContractOperation): OperationAnswers {
  const path = (document.paths as Record<string, Record<string, JsonObject | undefined>>)[operation.pathTemplate];
  const responses = deref<Record<string, unknown>>(document, path?.[operation.method.toLowerCase()]?.responses ?? {});
  const answers: DocumentedAnswer[] = [];
  const withoutExample: number[] = [];
  for (const [key, node] of Object.entries(responses)) {
    // `4XX` and `default` name no one status to answer with.
    if (!/^[1-5][0-9][0-9]$/.test(key)) continue;
    const status = Number(key);
    const response = deref<JsonObject>(document, node);
    const json = (response.content as Record<string, JsonObject> | undefined)?.['application/json'];
    const examples = Object.entries((json?.examples as Record<string, unknown> | undefined) ?? {});
    if (examples.length === 0) withoutExample.push(status);
    for (const [name, example] of examples) {
      const value = deref<JsonObject>(document, example).value;
      answers.push({ status, example: name, value, headers: headersOf(document, response, errorCodeOf(value)) });
    }
  }
  return { answers, withoutExample };
}

function errorCodeOf(value: unknown): string | undefined {
  const code = (value as { error?: { code?: unknown } } | null | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The headers an answer with `errorCode` carries (see above), at their example (the header's, else its schema's). */
function headersOf(document: ContractDocument, response: JsonObject, errorCode: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, node] of Object.entries((response.headers as Record<string, unknown> | undefined) ?? {})) {
    const header = deref<JsonObject>(document, node);
    const sentWith = header['x-sent-with-error-codes'];
    const carried = header.required === true || (errorCode !== undefined && Array.isArray(sentWith) && sentWith.includes(errorCode));
    if (!carried) continue;
    const schema = deref<JsonObject>(document, header.schema ?? {});
    const example = header.example ?? (schema.examples as unknown[] | undefined)?.[0] ?? schema.example ?? schema.default;
    if (example !== undefined) headers[name.toLowerCase()] = String(example);
  }
  return headers;
}
