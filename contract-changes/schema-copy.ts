/**
 * A schema copied node by node, each node's copy changed by `change` (the node as it was, its copy with its
 * subschemas copied already): the schema as a side sees it (example-checks.ts), or with every object closed to what
 * it documents (traffic/undocumented.ts). The schema given is never changed; a node used in several places (a
 * prepared contract inlines one object at every use of a component) is copied once.
 */
import type { JsonObject } from '../contract-model/document.ts';
import { listedSubschemas, namedSubschemas, singleSubschemas } from './location.ts';

export function copySchema(schema: unknown, change: (copy: JsonObject, node: JsonObject) => void): JsonObject {
  const copies = new WeakMap<object, unknown>();
  const walk = (node: unknown): unknown => {
    if (!isObject(node) || Array.isArray(node)) return node;
    const known = copies.get(node);
    if (known !== undefined) return known;
    const copy: JsonObject = { ...node };
    copies.set(node, copy);
    for (const keyword of namedSubschemas) {
      if (isObject(node[keyword])) copy[keyword] = Object.fromEntries(Object.entries(node[keyword]).map(([name, sub]) => [name, walk(sub)]));
    }
    for (const keyword of listedSubschemas) if (Array.isArray(node[keyword])) copy[keyword] = (node[keyword] as unknown[]).map(walk);
    for (const keyword of singleSubschemas) if (isObject(node[keyword])) copy[keyword] = walk(node[keyword]);
    change(copy, node);
    return copy;
  };
  return walk(schema) as JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}
