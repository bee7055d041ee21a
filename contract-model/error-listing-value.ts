/**
 * A value cut down to what its problems can be listed from in bounded time. Whether a value keeps a schema is
 * decided on the whole value, by a validator that stops at the first problem; listing every problem is another
 * pass, and Ajv's listing grows faster than the value (errors of each `$ref` called are copied onto those before
 * them): 16,000 empty objects in an array of at most 50 took seconds, and 32,000 overflowed the stack. So the
 * listing pass sees the value as the contract lets a valid one be, plus one of each thing too many:
 *
 * - an array keeps one item more than its `maxItems` (the array's own problem is still found, and the items
 *   past the limit are part of that one problem);
 * - an object keeps every property its schema names, and only the first `keptUnknownProperties` others (each of
 *   which is a problem of its own, so the listing is over its limit already).
 *
 * Those bounds are per array and per object; nested, they multiply (a seed's 10,000 customers of 100 companies
 * each is a million objects kept, a minute of listing). So the walk also keeps at most `keptNodes` items and
 * unknown properties in all, the first it meets; past them it cuts, and says so (`cut`): the listing then holds
 * the problems of what was kept, and more may lie past it.
 *
 * Nothing else changes: the listing finds exactly the problems of the items and properties it keeps.
 */
import { pointer, type ContractDocument, type JsonObject } from './document-nodes.ts';

export interface ListingBounds {
  /** Properties a schema does not name that are kept on one object. */
  keptUnknownProperties: number;
  /** Items kept of an array whose schema sets no `maxItems` (the contract's lint requires one on every array). */
  unboundedArrayItems: number;
  /** Array items and unknown properties kept in all, over the whole value. */
  keptNodes: number;
}

/** What is left of the whole value's `keptNodes`, and whether the walk cut anything to keep within it. */
interface Budget {
  left: number;
  cut: boolean;
}

/** Schemas the walk follows no further: a recursive schema would otherwise follow a deep value to its end. */
const maxDepth = 64;

/** The value cut as above; `cut` when the whole value's bound cut something (its problems may be more than listed). */
export function errorListingValue(document: ContractDocument, schema: JsonObject, value: unknown, bounds: ListingBounds): { value: unknown; cut: boolean } {
  const budget: Budget = { left: bounds.keptNodes, cut: false };
  const bounded = bound(document, [schema], value, { bounds, budget }, 0);
  return { value: bounded, cut: budget.cut };
}

interface Walk {
  bounds: ListingBounds;
  budget: Budget;
}

function bound(document: ContractDocument, schemas: readonly unknown[], value: unknown, walk: Walk, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > maxDepth) return value;
  const candidates = expand(document, schemas);
  if (candidates.length === 0) return value;
  return Array.isArray(value) ? boundArray(document, candidates, value, walk, depth) : boundObject(document, candidates, value as JsonObject, walk, depth);
}

function boundArray(document: ContractDocument, candidates: readonly JsonObject[], items: readonly unknown[], walk: Walk, depth: number): unknown[] {
  const { bounds, budget } = walk;
  const limits = candidates.map((schema) => schema.maxItems).filter((limit): limit is number => typeof limit === 'number');
  // The largest limit of the branches the value might be read against: no branch loses an item it allows.
  const allowed = limits.length > 0 ? limits.reduce((a, b) => Math.max(a, b)) + 1 : bounds.unboundedArrayItems;
  // Never fewer than the array must hold: a cut below its `minItems` would be a problem the value does not have.
  const least = Math.max(0, ...candidates.map((schema) => (typeof schema.minItems === 'number' ? schema.minItems : 0)));
  const kept = Math.max(Math.min(allowed, budget.left), least);
  if (kept < Math.min(allowed, items.length)) budget.cut = true;
  budget.left -= Math.min(kept, items.length);
  let result: unknown[] | undefined = items.length > kept ? items.slice(0, kept) : undefined;
  const length = Math.min(items.length, kept);
  for (let index = 0; index < length; index += 1) {
    const itemSchemas: unknown[] = [];
    for (const schema of candidates) {
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
      if (index < prefix.length) itemSchemas.push(prefix[index]);
      else if (isSchema(schema.items)) itemSchemas.push(schema.items);
    }
    const item = items[index];
    const bounded = bound(document, itemSchemas, item, walk, depth + 1);
    if (bounded !== item) (result ??= items.slice(0, length))[index] = bounded;
  }
  return result ?? (items as unknown[]);
}

function boundObject(document: ContractDocument, candidates: readonly JsonObject[], object: JsonObject, walk: Walk, depth: number): JsonObject {
  const { bounds, budget } = walk;
  const named = new Set<string>();
  for (const schema of candidates) {
    if (isSchema(schema.properties)) for (const name of Object.keys(schema.properties)) named.add(name);
    if (Array.isArray(schema.required)) for (const name of schema.required) named.add(String(name));
  }
  const keys = Object.keys(object);
  let unknown = 0;
  const kept = keys.filter((key) => {
    if (named.has(key)) return true;
    if (++unknown > bounds.keptUnknownProperties) return false;
    if (budget.left > 0) return (budget.left -= 1), true;
    budget.cut = true;
    return false;
  });
  // Cut, the object is made anew from what it keeps: copying it whole and deleting the rest cost far more.
  let result: JsonObject | undefined = kept.length < keys.length ? {} : undefined;
  for (const key of kept) {
    const childSchemas: unknown[] = [];
    for (const schema of candidates) {
      const property = isSchema(schema.properties) ? (schema.properties as JsonObject)[key] : undefined;
      if (isSchema(property)) childSchemas.push(property);
      else if (!named.has(key) && isSchema(schema.additionalProperties)) childSchemas.push(schema.additionalProperties);
    }
    const child = object[key];
    const bounded = bound(document, childSchemas, child, walk, depth + 1);
    if (bounded !== child) result ??= { ...object };
    // Defined, not assigned: a key `__proto__` stays a property, as in the value read.
    if (result) Object.defineProperty(result, key, { value: bounded, writable: true, enumerable: true, configurable: true });
  }
  return result ?? object;
}

/** The schemas a value at one place is read against: each one with its `$ref` followed and its branches. */
function expand(document: ContractDocument, schemas: readonly unknown[]): JsonObject[] {
  const found: JsonObject[] = [];
  const seen = new Set<JsonObject>();
  const pending = [...schemas];
  while (pending.length > 0) {
    const schema = pending.pop();
    if (!isSchema(schema) || seen.has(schema)) continue;
    seen.add(schema);
    found.push(schema);
    if (typeof schema.$ref === 'string') pending.push(resolve(document, schema.$ref));
    for (const keyword of ['allOf', 'oneOf', 'anyOf'] as const) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) for (const branch of branches) pending.push(branch);
    }
    pending.push(schema.then, schema.else);
  }
  return found;
}

function resolve(document: ContractDocument, ref: string): unknown {
  try {
    return pointer(document, ref);
  } catch {
    // A reference this walk cannot follow only means the value below it is listed whole.
    return undefined;
  }
}

function isSchema(node: unknown): node is JsonObject {
  return node !== null && typeof node === 'object' && !Array.isArray(node);
}
