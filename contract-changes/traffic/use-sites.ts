/**
 * Where a statement of the review applies, read as a place a recorded exchange can meet: a side (the request or the
 * answer), a status, a parameter, a header, or a field of a body (entries.ts `Use`: "request body", "query parameter
 * status", "response 200 header x-request-id", "response 200 body" with `/payload/data/[]/email`). A problem a check
 * found in an exchange (exchange-check.ts) is set beside the places it falls in, the most precise first.
 */
import type { JsonObject } from '../../contract-model/document.ts';
import type { Use } from '../entries.ts';
import { parsePointer, valueAt } from '../location.ts';
import type { Problem } from './exchange-check.ts';
import type { Side } from './replay.ts';

export interface UseSite {
  /** Absent: the operation as a whole (added, removed, its path changed). */
  side?: Side;
  /** The response's status as the contract keys it: `200`, `4XX`, `default`. */
  status?: string;
  parameter?: { in: string; name: string };
  header?: string;
  body: boolean;
  /** The field's path inside the body, `[]` standing for any item. */
  field: string[];
}

/** The place a use names; nothing for what no recorded API exchange holds (a webhook, the document's root). */
export function siteOf(use: Use): UseSite | undefined {
  if (use.operation === undefined || use.scope.startsWith('webhook ')) return undefined;
  const field = fieldSegments(use.field);
  const { part } = use;
  if (part === '') return { body: false, field: [] };
  if (part.startsWith('request body')) return { side: 'request', body: true, field };
  const parameter = /^(query|path|header|cookie) parameter (.+)$/.exec(part);
  if (parameter) return { side: 'request', parameter: { in: parameter[1]!, name: parameter[2]! }, body: false, field };
  const response = /^response (\S+)(?: (header) (.+)| (body).*)?$/.exec(part);
  if (!response) return undefined;
  const [, status, header, name, body] = response;
  return { side: 'answer', status: status!, ...(header ? { header: name!.toLowerCase() } : {}), body: body !== undefined, field };
}

/** `/payload/data/[]/email` as segments; a branch or keyword of the schema (`(oneOf 2)`) is no segment of the value. */
function fieldSegments(field: string): string[] {
  return field.split('/').slice(1).filter((segment) => !/^\(.*\)$/.test(segment));
}

/** A JSON Pointer's segments, unescaped. */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/**
 * How precisely a site holds a problem of one side of an exchange (answered `status`): undefined when it does not,
 * and the more the more precise, so that a problem is set beside the statements nearest to it.
 */
export function precision(site: UseSite, side: Side, problem: Problem, status: number | undefined): number | undefined {
  if (site.side === undefined) return 0;
  if (site.side !== side) return undefined;
  if (side === 'answer' && !statusMatches(site.status, status)) return undefined;
  const field = pointerSegments(problem.field);
  if (site.parameter) return problem.in === site.parameter.in && sameName(field[0], site.parameter.name, site.parameter.in === 'header') ? 2 : undefined;
  if (site.header) return problem.in === 'header' && field[0] === site.header ? 3 : undefined;
  if (site.body) {
    if (problem.in === 'header' && field[0] === 'content-type') return 1;
    return problem.in === 'body' && isPrefix(site.field, field) ? 2 + site.field.length : undefined;
  }
  // A response as a whole (its status documented or not).
  return side === 'answer' ? 1 : undefined;
}

export function statusMatches(documented: string | undefined, status: number | undefined): boolean {
  if (documented === undefined || status === undefined) return true;
  const text = String(status);
  return documented === text || documented === 'default' || documented === `${text[0]}XX`;
}

function sameName(sent: string | undefined, documented: string, caseless: boolean): boolean {
  return sent !== undefined && (caseless ? sent.toLowerCase() === documented.toLowerCase() : sent === documented);
}

function isPrefix(site: readonly string[], field: readonly string[]): boolean {
  return site.length <= field.length && site.every((segment, index) => (segment === '[]' ? /^\d+$/.test(field[index]!) : segment === field[index]));
}

/**
 * The fields a change takes from what a site holds, as the prepared contracts (prepare.ts) the use's pointer is
 * into say: the names no longer required (a `required` changed), the old name of a renamed property (its `key`),
 * and otherwise the use's own field (a property removed, or changed).
 */
export function takenFields(use: Use, site: UseSite, contracts: { before: JsonObject; after: JsonObject }): string[][] {
  const segments = parsePointer(use.pointer);
  const last = segments.at(-1);
  if (last === 'required') {
    const names = (contract: JsonObject) => new Set((valueAt(contract, segments) as unknown[] | undefined)?.map(String) ?? []);
    const now = names(contracts.after);
    return [...names(contracts.before)].filter((name) => !now.has(name)).map((name) => [...site.field, name]);
  }
  if (last === 'key' && segments.at(-3) === 'properties') {
    const keys = (contract: JsonObject) => Object.keys((valueAt(contract, segments.slice(0, -2)) as JsonObject | undefined) ?? {});
    const now = new Set(keys(contracts.after));
    return keys(contracts.before).filter((name) => !now.has(name)).map((name) => [...site.field.slice(0, -1), name]);
  }
  return [site.field];
}

/** What a JSON value holds at a site's field (`[]`: in any item, the first that holds it), or undefined when nothing. */
export function findField(value: unknown, field: readonly string[]): { value: unknown } | undefined {
  if (field.length === 0) return value === undefined ? undefined : { value };
  if (value === null || typeof value !== 'object') return undefined;
  const [segment, ...rest] = field;
  if (segment === '[]') {
    if (!Array.isArray(value)) return undefined;
    for (const item of value) {
      const found = findField(item, rest);
      if (found) return found;
    }
    return undefined;
  }
  return Object.hasOwn(value, segment!) ? findField((value as Record<string, unknown>)[segment!], rest) : undefined;
}
