/**
 * What a reader of the reference docs sees of each operation and webhook a change touches, before and after, as
 * lines of text: its summary and description, its parameters, its request body's fields and each response's
 * headers and fields, with what Redoc shows of each (required, type and format, limits, enum values, default,
 * deprecated, description). A field is shown on the side that carries it, as Redoc shows it: a `readOnly` one in
 * responses only, a `writeOnly` one in requests only. Read from the prepared contracts (every `$ref` inlined,
 * every `allOf` merged), so that a field is where the docs show it whichever component it comes from.
 */
import type { JsonObject } from '../../contract-model/document.ts';
import { describeScope, formatPointer, isMethod, keptOutBy, parsePointer, valueAt, type Side } from '../location.ts';
import { operationAt, type ReviewedChange, type Use } from '../entries.ts';

export interface ViewLine {
  /** How deep it sits: 0 for a section (`Request body`), 1 for what it holds, 2 for a field's fields, … */
  depth: number;
  text: string;
}

export interface OperationView {
  /** `POST /v1/partner/customers (createCustomer)`, `webhook document.ready`. */
  scope: string;
  operation?: Use['operation'];
  /** Absent when the change adds it. */
  before?: ViewLine[];
  /** Absent when the change removes it. */
  after?: ViewLine[];
}

/** Nested schemas deeper than this are cut (a contract may describe a recursive structure). */
const maxDepth = 12;

/** Each operation and webhook the changes apply to, in the order of the contract (what the change removed last). */
export function operationViews(changes: readonly ReviewedChange[], before: JsonObject, after: JsonObject): OperationView[] {
  const touched = new Set<string>();
  for (const change of changes) {
    for (const use of change.statements.flatMap((statement) => statement.uses)) {
      for (const key of operationKeys(use.pointer, before, after)) touched.add(key);
    }
  }
  const ordered = [...new Set([...allOperationKeys(after), ...allOperationKeys(before)])].filter((key) => touched.has(key));
  return ordered.map((key) => {
    const segments = JSON.parse(key) as string[];
    const [was, is] = [valueAt(before, segments), valueAt(after, segments)] as (JsonObject | undefined)[];
    const document = is === undefined ? before : after;
    const operation = operationAt(formatPointer(segments), document);
    return {
      scope: describeScope(segments, document),
      ...(operation === undefined ? {} : { operation }),
      ...(was === undefined ? {} : { before: viewOf(was) }),
      ...(is === undefined ? {} : { after: viewOf(is) }),
    };
  });
}

/** The operations a pointer is in: one, or every operation of a path when the edit is to the path item. */
function operationKeys(pointer: string, before: JsonObject, after: JsonObject): string[] {
  const [root, name, method] = parsePointer(pointer);
  if ((root !== 'paths' && root !== 'webhooks') || name === undefined) return [];
  if (isMethod(method)) return [JSON.stringify([root, name, method])];
  const methods = Object.keys({ ...(valueAt(before, [root, name]) as JsonObject), ...(valueAt(after, [root, name]) as JsonObject) }).filter(isMethod);
  return methods.map((each) => JSON.stringify([root, name, each]));
}

function allOperationKeys(document: JsonObject): string[] {
  return (['paths', 'webhooks'] as const).flatMap((root) =>
    Object.entries((document[root] ?? {}) as Record<string, JsonObject>).flatMap(([name, item]) =>
      Object.keys(item).filter(isMethod).map((method) => JSON.stringify([root, name, method]))));
}

function viewOf(operation: JsonObject): ViewLine[] {
  const lines: ViewLine[] = [];
  const add = (depth: number, text: string) => lines.push({ depth, text });
  add(0, `${text(operation.summary) || '(no summary)'}${operation.deprecated === true ? ' (deprecated)' : ''}`);
  for (const line of paragraphs(operation.description)) add(1, line);
  const parameters = (operation.parameters ?? []) as JsonObject[];
  if (parameters.length > 0) add(0, 'Parameters');
  for (const parameter of parameters) {
    add(1, fieldLine(`${String(parameter.in)} ${String(parameter.name)}`, parameter.required === true, parameter, (parameter.schema ?? {}) as JsonObject));
  }
  const body = operation.requestBody as JsonObject | undefined;
  if (body !== undefined) {
    add(0, `Request body${body.required === true ? ' (required)' : ''}${inline(body.description)}`);
    contentLines(body.content, 'request', 1, add);
  }
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, JsonObject>)) {
    add(0, `Response ${status}${inline(response.description)}`);
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, JsonObject>)) {
      add(1, fieldLine(`header ${name}`, header.required === true, header, (header.schema ?? {}) as JsonObject));
    }
    contentLines(response.content, 'response', 1, add);
  }
  return lines;
}

function contentLines(content: unknown, side: Side, depth: number, add: (depth: number, text: string) => void): void {
  for (const [mediaType, media] of Object.entries((content ?? {}) as Record<string, JsonObject>)) {
    const schema = (media.schema ?? {}) as JsonObject;
    add(depth, `${mediaType}: ${typeText(schema)}${constraints(schema)}${inline(schema.description)}`);
    schemaLines(schema, side, depth + 1, add);
  }
}

/** The fields of a schema, each with its own below it: properties, array items' properties, each branch of a oneOf. */
function schemaLines(schema: JsonObject, side: Side, depth: number, add: (depth: number, text: string) => void): void {
  if (depth > maxDepth) return add(depth, '…');
  const items = schema.items as JsonObject | undefined;
  if (items !== undefined && typeof items === 'object' && (items.properties !== undefined || items.oneOf !== undefined || items.anyOf !== undefined)) {
    return schemaLines(items, side, depth, add);
  }
  const required = new Set((schema.required ?? []) as string[]);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonObject>)) {
    if (property[keptOutBy[side]] === true) continue;
    add(depth, fieldLine(name, required.has(name), property, property));
    schemaLines(property, side, depth + 1, add);
  }
  if (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null) {
    const other = schema.additionalProperties as JsonObject;
    add(depth, fieldLine('(any other property)', false, other, other));
    schemaLines(other, side, depth + 1, add);
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    ((schema[keyword] ?? []) as JsonObject[]).forEach((branch, index) => {
      add(depth, `${keyword === 'oneOf' ? 'one of' : 'any of'} (${index + 1}): ${typeof branch.title === 'string' ? `${branch.title}, ` : ''}${typeText(branch)}${constraints(branch)}${inline(branch.description)}`);
      schemaLines(branch, side, depth + 1, add);
    });
  }
}

/** `email*  string <email>, [3 .. 254] characters — An email address.`: one field, parameter or header. */
function fieldLine(name: string, required: boolean, described: JsonObject, schema: JsonObject): string {
  const deprecated = described.deprecated === true || schema.deprecated === true ? ', deprecated' : '';
  return `${name}${required ? '*' : ''}  ${typeText(schema)}${constraints(schema)}${deprecated}${inline(described.description ?? schema.description)}`;
}

/** Redoc's words for a type: `string <email>`, `Array of objects`, `integer or null`. */
function typeText(schema: JsonObject): string {
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]) as string[];
  const named = types.map((type) => {
    if (type !== 'array') return `${type}${typeof schema.format === 'string' ? ` <${schema.format}>` : ''}`;
    const items = (schema.items ?? {}) as JsonObject;
    const of = typeText(items);
    return `Array of ${of === 'object' ? 'objects' : of === 'one of' || of === 'any of' ? `items, ${of}` : of}`;
  });
  if (named.length > 0) return named.join(' or ');
  if (schema.oneOf !== undefined) return 'one of';
  if (schema.anyOf !== undefined) return 'any of';
  return schema.properties === undefined ? 'any' : 'object';
}

/** The limits and values Redoc lists under a field, each as it words it. */
function constraints(schema: JsonObject): string {
  const parts: string[] = [];
  const range = (low: unknown, high: unknown, unit: string) => {
    if (low === undefined && high === undefined) return;
    if (low !== undefined && high !== undefined) parts.push(low === high ? `${String(low)} ${unit}` : `[ ${String(low)} .. ${String(high)} ] ${unit}`);
    else parts.push(low === undefined ? `<= ${String(high)} ${unit}` : `>= ${String(low)} ${unit}`);
  };
  range(schema.minLength, schema.maxLength, 'characters');
  range(schema.minItems, schema.maxItems, 'items');
  range(schema.minProperties, schema.maxProperties, 'properties');
  if (schema.minimum !== undefined) parts.push(`>= ${String(schema.minimum)}`);
  if (schema.exclusiveMinimum !== undefined) parts.push(`> ${String(schema.exclusiveMinimum)}`);
  if (schema.maximum !== undefined) parts.push(`<= ${String(schema.maximum)}`);
  if (schema.exclusiveMaximum !== undefined) parts.push(`< ${String(schema.exclusiveMaximum)}`);
  if (schema.multipleOf !== undefined) parts.push(`multiple of ${String(schema.multipleOf)}`);
  if (schema.uniqueItems === true) parts.push('unique items');
  if (schema.pattern !== undefined) parts.push(`pattern ${String(schema.pattern)}`);
  if (Array.isArray(schema.enum)) parts.push(`Enum: ${schema.enum.map((value) => JSON.stringify(value)).join(' ')}`);
  if (schema.const !== undefined) parts.push(`Value: ${JSON.stringify(schema.const)}`);
  if (schema.default !== undefined) parts.push(`Default: ${JSON.stringify(schema.default)}`);
  return parts.length === 0 ? '' : `, ${parts.join(', ')}`;
}

/** Markdown as the page shows it, roughly: links and inline code as their text, emphasis dropped. */
function text(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\w*])[*_]([^*_\s][^*_]*?)[*_](?=[^\w*]|$)/g, '$1$2')
    .trim();
}

/** A description on one line, after a dash: a field's or a response's. */
function inline(value: unknown): string {
  const shown = text(value).replace(/\s+/g, ' ');
  return shown === '' ? '' : ` — ${shown}`;
}

/** A long description, one line per paragraph or list item. */
function paragraphs(value: unknown): string[] {
  return text(value).split(/\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)|\n(?=#)/).map((paragraph) => paragraph.replace(/\s+/g, ' ').trim()).filter((line) => line !== '');
}
