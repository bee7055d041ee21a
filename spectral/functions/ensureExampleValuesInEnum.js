// Examples are copied into client code and mock responses; a code the catalogue does not define would mislead both.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { followRef } from '../lib/followRef.js';
import { isPlainObject } from '../lib/schemaWalk.js';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: {
        // Dot-separated property names, `*` for every item of an array: `error.details.*.code`.
        fields: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
      },
      required: ['fields'],
      additionalProperties: false,
    },
  },
  function ensureExampleValuesInEnum(mediaType, { fields }, { path, documentInventory }) {
    const follow = (node, nodePath) => followRef(node, nodePath, documentInventory);
    const results = [];
    for (const field of fields) {
      const segments = field.split('.');
      // The enum comes from the response's own schema: that is what the example has to satisfy.
      const allowed = enumAt([[mediaType.schema, [...path, 'schema']]], segments, follow);
      for (const [example, examplePath] of examplesOf(mediaType, path, follow)) {
        for (const [value, valuePath] of valuesAt(example, segments, examplePath)) {
          if (allowed === undefined) {
            const message = `The schema declares no enum for "${field}" to check ${JSON.stringify(value)} against.`;
            results.push({ message, path: valuePath });
          } else if (!allowed.has(value)) {
            results.push({ message: `${JSON.stringify(value)} is not in the enum of "${field}".`, path: valuePath });
          }
        }
      }
    }
    return results;
  },
);

function examplesOf(mediaType, path, follow) {
  const found = mediaType.example === undefined ? [] : [[mediaType.example, [...path, 'example']]];
  for (const name of Object.keys(isPlainObject(mediaType.examples) ? mediaType.examples : {})) {
    const example = follow(mediaType.examples[name], [...path, 'examples', name]);
    if (isPlainObject(example) && 'value' in example) found.push([example.value, [...path, 'examples', name, 'value']]);
  }
  return found;
}

function* valuesAt(value, segments, path) {
  if (segments.length === 0) {
    yield [value, path];
    return;
  }
  const [head, ...rest] = segments;
  if (head === '*') {
    if (!Array.isArray(value)) return;
    for (const [index, item] of value.entries()) yield* valuesAt(item, rest, [...path, index]);
  } else if (isPlainObject(value) && head in value) {
    yield* valuesAt(value[head], rest, [...path, head]);
  }
}

/** The union of the enums that the `[schema, path]` pairs allow at `segments`, or undefined when none declares one. */
function enumAt(schemas, segments, follow) {
  const candidates = schemas.flatMap(([schema, path]) => withCombined(schema, path, follow));
  if (segments.length === 0) {
    const values = candidates.flatMap(([schema]) => (Array.isArray(schema.enum) ? schema.enum : []));
    return candidates.some(([schema]) => Array.isArray(schema.enum)) ? new Set(values) : undefined;
  }
  const [head, ...rest] = segments;
  const next = candidates.map(([schema, path]) =>
    head === '*' ? [schema.items, [...path, 'items']] : [schema.properties?.[head], [...path, 'properties', head]],
  );
  return enumAt(next, rest, follow);
}

/** A schema and, recursively, the members of its `allOf`, `oneOf` and `anyOf`: any of them may constrain a value. */
function withCombined(schema, path, follow) {
  const resolved = follow(schema, path);
  if (!isPlainObject(resolved)) return [];
  const members = ['allOf', 'oneOf', 'anyOf'].flatMap((keyword) => {
    const list = Array.isArray(resolved[keyword]) ? resolved[keyword] : [];
    return list.map((member, index) => [member, [...path, keyword, index]]);
  });
  return [[resolved, path], ...members.flatMap(([member, memberPath]) => withCombined(member, memberPath, follow))];
}
