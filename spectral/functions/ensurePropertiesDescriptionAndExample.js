// Docs, mocks and generated clients are only as good as each field's own words and sample value.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { eachProperty, isObjectSchema, isPlainObject } from '../lib/schemaWalk.js';

export default createRulesetFunction(
  { input: { type: 'object' }, options: null },
  function ensurePropertiesDescriptionAndExample(schema, _options, { path, documentInventory }) {
    const results = [];
    const visit = (name, property, propertyPath) => {
      if (!isPlainObject(property)) return;
      if (!hasText(property.description)) {
        results.push({ message: `Property "${name}" has no description.`, path: propertyPath });
      }
      // An object's example is the sum of its properties' examples, which are checked on their own.
      if (!isObjectSchema(property, propertyPath, documentInventory) && !hasExample(property)) {
        const message = `Property "${name}" has no example (\`examples\` or \`example\`).`;
        results.push({ message, path: propertyPath });
      }
    };
    eachProperty(schema, path, visit, documentInventory);
    return results;
  },
);

function hasText(value) {
  return typeof value === 'string' && value.trim() !== '';
}

function hasExample(schema) {
  return (Array.isArray(schema.examples) && schema.examples.length > 0) || schema.example !== undefined;
}
