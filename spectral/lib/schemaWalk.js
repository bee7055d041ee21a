// Schema rules must reach schemas and properties nested anywhere in a schema, so the walk follows every keyword that
// holds a subschema; the `seen` set stops it on recursive schemas, which the resolved document holds as cycles.
import { followRef } from './followRef.js';

const SINGLE = [
  'items', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'contains', 'propertyNames',
  'not', 'if', 'then', 'else',
];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['patternProperties', 'dependentSchemas', '$defs'];

export function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Calls `visit(subschema, subschemaPath)` for the schema at `path` of the resolved document and every schema nested
 * in it, each once, following the `$ref`s the resolver left in place.
 */
export function eachSchema(schema, path, visit, documentInventory, seen = new WeakSet()) {
  const walk = (node, nodePath) => eachSchema(node, nodePath, visit, documentInventory, seen);
  const resolved = followRef(schema, path, documentInventory);
  if (!isPlainObject(resolved) || seen.has(resolved)) return;
  seen.add(resolved);
  visit(resolved, path);
  for (const [name, property] of entriesOf(resolved.properties)) walk(property, [...path, 'properties', name]);
  for (const keyword of SINGLE) walk(resolved[keyword], [...path, keyword]);
  for (const keyword of LISTS) {
    if (!Array.isArray(resolved[keyword])) continue;
    resolved[keyword].forEach((member, index) => walk(member, [...path, keyword, index]));
  }
  for (const keyword of MAPS) {
    for (const [key, member] of entriesOf(resolved[keyword])) walk(member, [...path, keyword, key]);
  }
}

/**
 * Calls `visit(name, propertySchema, propertyPath)` for every entry of every `properties` in the schema at `path`
 * of the resolved document, following the `$ref`s the resolver left in place.
 */
export function eachProperty(schema, path, visit, documentInventory) {
  eachSchema(
    schema,
    path,
    (resolved, schemaPath) => {
      for (const [name, property] of entriesOf(resolved.properties)) {
        const propertyPath = [...schemaPath, 'properties', name];
        visit(name, followRef(property, propertyPath, documentInventory), propertyPath);
      }
    },
    documentInventory,
  );
}

/** Whether values of the schema at `path` are JSON objects: by `type`, by `properties`, or through its combinators. */
export function isObjectSchema(schema, path, documentInventory) {
  const resolved = followRef(schema, path, documentInventory);
  if (!isPlainObject(resolved)) return false;
  const types = [resolved.type ?? []].flat();
  if (types.length > 0) return types.includes('object');
  if (isPlainObject(resolved.properties)) return true;
  const members = (keyword) =>
    (Array.isArray(resolved[keyword]) ? resolved[keyword] : []).map((member, index) => {
      const memberPath = [...path, keyword, index];
      return [followRef(member, memberPath, documentInventory), memberPath];
    });
  const isObject = ([member, memberPath]) => isObjectSchema(member, memberPath, documentInventory);
  if (members('allOf').some(isObject)) return true;
  // A nullable object (`oneOf: [object, null]`) is still an object.
  const branches = [...members('oneOf'), ...members('anyOf')].filter(([member]) => member?.type !== 'null');
  return branches.length > 0 && branches.every(isObject);
}

function entriesOf(map) {
  return isPlainObject(map) ? Object.entries(map) : [];
}
