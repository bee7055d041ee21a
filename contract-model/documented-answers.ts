/**
 * The answers the contract documents for an operation, as a forced answer can give them: each status, and under it
 * each named example of its JSON body, with the headers the response requires at their documented example values.
 * (Every response the contract documents has a body.)
 */
import { deref, type ContractDocument, type JsonObject } from './document-nodes.ts';
import type { ContractOperation } from './operations.ts';

export interface DocumentedAnswer {
  status: number;
  /** The example's name. */
  example: string;
  /** The example's value: the whole JSON body (the envelope), as documented. */
  value: unknown;
  /** The headers the response requires, at their example values. */
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
    const headers = requiredHeaders(document, response);
    const json = (response.content as Record<string, JsonObject> | undefined)?.['application/json'];
    const examples = Object.entries((json?.examples as Record<string, unknown> | undefined) ?? {});
    if (examples.length === 0) withoutExample.push(status);
    for (const [name, example] of examples) answers.push({ status, example: name, value: deref<JsonObject>(document, example).value, headers });
  }
  return { answers, withoutExample };
}

/** The response's required headers, at their example (the header's, else its schema's). */
function requiredHeaders(document: ContractDocument, response: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, node] of Object.entries((response.headers as Record<string, unknown> | undefined) ?? {})) {
    const header = deref<JsonObject>(document, node);
    if (header.required !== true) continue;
    const schema = deref<JsonObject>(document, header.schema ?? {});
    const example = header.example ?? (schema.examples as unknown[] | undefined)?.[0] ?? schema.example ?? schema.default;
    if (example !== undefined) headers[name.toLowerCase()] = String(example);
  }
  return headers;
}
