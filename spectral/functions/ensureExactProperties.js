// Clients unwrap every body the same way only if every body has the same shape, with nothing missing or extra.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { followRef } from '../lib/followRef.js';
import { isObjectSchema, isPlainObject } from '../lib/schemaWalk.js';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { properties: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true } },
      required: ['properties'],
      additionalProperties: false,
    },
  },
  function ensureExactProperties(schema, { properties: expected }, { path, documentInventory }) {
    const shape = flatten(schema, path, documentInventory);
    const results = [];
    if (!isObjectSchema(schema, path, documentInventory)) {
      results.push({ message: 'Schema is not an object schema.', path });
    }
    for (const name of expected) {
      if (!shape.properties.has(name)) results.push({ message: `Schema lacks the property "${name}".`, path });
      else if (!shape.required.has(name)) results.push({ message: `Schema does not require "${name}".`, path });
    }
    for (const name of shape.properties) {
      if (expected.includes(name)) continue;
      const message = `Schema has the property "${name}"; only ${expected.join(', ')} are allowed.`;
      results.push({ message, path: [...path, 'properties', name] });
    }
    return results;
  },
);

/** The property names and required names of a schema, merged through `allOf` as a validator combines them. */
function flatten(schema, path, documentInventory, shape = { properties: new Set(), required: new Set() }) {
  const resolved = followRef(schema, path, documentInventory);
  if (!isPlainObject(resolved)) return shape;
  if (isPlainObject(resolved.properties)) {
    Object.keys(resolved.properties).forEach((name) => shape.properties.add(name));
  }
  if (Array.isArray(resolved.required)) resolved.required.forEach((name) => shape.required.add(name));
  if (Array.isArray(resolved.allOf)) {
    resolved.allOf.forEach((member, index) => flatten(member, [...path, 'allOf', index], documentInventory, shape));
  }
  return shape;
}
