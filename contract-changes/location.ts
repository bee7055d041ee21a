/**
 * Where a change sits, read from its JSON Pointer in a prepared contract: which operation or webhook, which part
 * of the exchange (request or response, as the partner sees it), and which field inside a schema.
 */
import type { JsonObject } from '../contract-model/document.ts';

/** Who writes the value: the partner (`request`: an API request, or its answer to a webhook) or the API. */
export type Side = 'request' | 'response';

/** The keyword that keeps a field out of a side: `readOnly` out of what the partner sends, `writeOnly` out of what it receives. */
export const keptOutBy: Record<Side, 'readOnly' | 'writeOnly'> = { request: 'readOnly', response: 'writeOnly' };

export interface Location {
  /** `#/paths/~1v1~1partner~1customers/post/requestBody/…`, as in the prepared (dereferenced) contract. */
  pointer: string;
  /** `POST /v1/partner/customers (createCustomer)`, `webhook document.ready`, `servers`, … */
  scope: string;
  /** `request body`, `response 200 body`, `query parameter limit`, … (empty for the scope as a whole) */
  part: string;
  /** Inside a schema: the property path, `/payload/data/[]/email` (empty when the change is not in a schema). */
  field: string;
}

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export function parsePointer(pointer: string): string[] {
  const body = pointer.replace(/^#/, '');
  if (body === '' || body === '/') return [];
  return body.slice(1).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function formatPointer(segments: readonly (string | number)[]): string {
  return `#/${segments.map((segment) => String(segment).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

export function valueAt(document: unknown, segments: readonly string[]): unknown {
  let node = document;
  for (const segment of segments) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as JsonObject)[segment];
  }
  return node;
}

/** Schema keywords whose value is a map of names to subschemas. */
export const namedSubschemas = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Schema keywords whose value is a list of subschemas. */
export const listedSubschemas = new Set(['oneOf', 'anyOf', 'allOf', 'prefixItems']);
/** Schema keywords whose value is one subschema. */
export const singleSubschemas = new Set([
  'items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
  'if', 'then', 'else', 'contentSchema',
]);

export interface SchemaPosition {
  /** Segments from the schema root to the schema the change is in. */
  schemaPath: string[];
  /**
   * The keyword of that schema that changed, with the path inside its value (`examples`, `0`, `email`); none when
   * a whole subschema was added or removed (then `schemaPath` ends with `properties/<name>`, `oneOf/<n>`, …).
   */
  keyword?: string;
  inKeyword: string[];
}

/** Splits the segments below a schema root into the subschema path and the keyword, if any. */
export function schemaPosition(segments: readonly string[]): SchemaPosition {
  const schemaPath: string[] = [];
  let index = 0;
  while (index < segments.length) {
    const keyword = segments[index]!;
    const next = segments[index + 1];
    if ((namedSubschemas.has(keyword) || listedSubschemas.has(keyword)) && next !== undefined) {
      schemaPath.push(keyword, next);
      index += 2;
    } else if (singleSubschemas.has(keyword) && next !== undefined) {
      // A change below `items` is inside its subschema; `items` itself added, removed or turned to `false` is not.
      schemaPath.push(keyword);
      index += 1;
    } else {
      return { schemaPath, keyword, inKeyword: segments.slice(index + 1) };
    }
  }
  return { schemaPath, inKeyword: [] };
}

/** `/payload/data/[]/email` for `properties/payload/properties/data/items/properties/email`. */
export function fieldPath(schemaPath: readonly string[]): string {
  const parts: string[] = [];
  for (let index = 0; index < schemaPath.length; index += 1) {
    const segment = schemaPath[index]!;
    if (namedSubschemas.has(segment)) {
      parts.push(schemaPath[index + 1]!);
      index += 1;
    } else if (listedSubschemas.has(segment)) {
      parts.push(`(${segment} ${Number(schemaPath[index + 1]) + 1})`);
      index += 1;
    } else if (segment === 'items') {
      parts.push('[]');
    } else {
      parts.push(`(${segment})`);
    }
  }
  return parts.length === 0 ? '' : `/${parts.join('/')}`;
}

export function describeScope(segments: readonly string[], document: unknown): string {
  const [root, name, method] = segments;
  if (root === 'paths' && name !== undefined) {
    if (method === undefined || !methods.has(method)) return `path ${name}`;
    const operationId = valueAt(document, ['paths', name, method, 'operationId']);
    return `${method.toUpperCase()} ${name}${typeof operationId === 'string' ? ` (${operationId})` : ''}`;
  }
  if (root === 'webhooks' && name !== undefined) return `webhook ${name}`;
  if (root === 'components' && name !== undefined) return `components.${name}`;
  return root ?? 'the document';
}

export function isMethod(segment: string | undefined): boolean {
  return segment !== undefined && methods.has(segment);
}
