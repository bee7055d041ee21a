/**
 * What Try needs of a schema to make a form of it: the top-level fields of a JSON body (its properties, through
 * `allOf` and the `oneOf` variant the value is of), each with how it is edited; and a body's named examples. Read
 * from the contract document, through the contract model's `deref`.
 */
import { deref, type ContractDocument, type JsonObject } from '../../../contract-model/document-nodes.ts';

export type FieldKind = { kind: 'text' | 'number' | 'integer' | 'boolean' } | { kind: 'choice'; options: string[] } | { kind: 'json' };

export interface BodyField {
  name: string;
  required: boolean;
  description?: string;
  edit: FieldKind;
}

/** A schema's own properties and required names, with those of its `allOf` parts and the variant `value` is of. */
function objectShape(document: ContractDocument, node: unknown, value: unknown, depth = 0): { properties: Record<string, unknown>; required: string[] } {
  const schema = deref(document, node);
  const shape = { properties: { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) }, required: [...((schema.required as string[] | undefined) ?? [])] };
  if (depth > 8) return shape;
  const parts = [...((schema.allOf as unknown[] | undefined) ?? []), ...[variantOf(document, schema, value)].filter((part) => part !== undefined)];
  for (const part of parts) {
    const inner = objectShape(document, part, value, depth + 1);
    Object.assign(shape.properties, inner.properties);
    shape.required.push(...inner.required);
  }
  return shape;
}

/** The `oneOf`/`anyOf` variant a value is of: by the discriminator when there is one, else the first. */
function variantOf(document: ContractDocument, schema: JsonObject, value: unknown): unknown {
  const variants = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (!variants?.length) return undefined;
  const discriminator = schema.discriminator as { propertyName?: string; mapping?: Record<string, string> } | undefined;
  const tag = discriminator?.propertyName && value && typeof value === 'object' ? (value as Record<string, unknown>)[discriminator.propertyName] : undefined;
  if (typeof tag === 'string' && discriminator?.mapping?.[tag]) return { $ref: discriminator.mapping[tag] };
  return variants[0];
}

function editOf(document: ContractDocument, node: unknown): FieldKind {
  const schema = deref(document, node);
  const options = (schema.enum as unknown[] | undefined) ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (options?.every((option) => typeof option === 'string')) return { kind: 'choice', options: options as string[] };
  const types = Array.isArray(schema.type) ? (schema.type as string[]).filter((type) => type !== 'null') : [schema.type];
  const [type] = types;
  if (types.length === 1 && (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean')) return { kind: type === 'string' ? 'text' : type };
  return { kind: 'json' };
}

/** The fields of a JSON body, for a value of it (which picks the variant). */
export function bodyFields(document: ContractDocument, schema: JsonObject | undefined, value: unknown): BodyField[] {
  if (!schema) return [];
  const shape = objectShape(document, schema, value);
  return Object.entries(shape.properties).map(([name, node]) => {
    const description = deref(document, node).description;
    return { name, required: shape.required.includes(name), edit: editOf(document, node), ...(typeof description === 'string' ? { description } : {}) };
  });
}

export function parameterEdit(document: ContractDocument, schema: JsonObject): FieldKind {
  return editOf(document, schema);
}

/** An example of a schema: its first `examples` entry, or `example`. */
export function schemaExample(document: ContractDocument, schema: JsonObject | undefined): unknown {
  if (!schema) return undefined;
  const resolved = deref(document, schema);
  return (resolved.examples as unknown[] | undefined)?.[0] ?? resolved.example;
}

/** The named examples of an operation's JSON request body, as the contract lists them (the body's own first). */
export interface BodyExample {
  name: string;
  summary?: string;
  value: unknown;
}

export function bodyExamples(document: ContractDocument, method: string, pathTemplate: string): BodyExample[] {
  const operation = deref(document, document.paths[pathTemplate]?.[method.toLowerCase()]);
  const body = deref(document, operation.requestBody);
  const json = deref(document, (body.content as Record<string, unknown> | undefined)?.['application/json']);
  const named = Object.entries((json.examples as Record<string, unknown> | undefined) ?? {}).map(([name, node]) => {
    const example = deref(document, node);
    return { name, value: example.value, ...(typeof example.summary === 'string' ? { summary: example.summary } : {}) };
  });
  if (named.length > 0) return named;
  const value = json.example ?? schemaExample(document, json.schema as JsonObject | undefined);
  return value === undefined ? [] : [{ name: 'example', value }];
}
