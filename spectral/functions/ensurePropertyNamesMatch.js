// One naming convention across the wire, so clients never guess a field's spelling.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { eachProperty } from '../lib/schemaWalk.js';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { pattern: { type: 'string', minLength: 1 } },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  function ensurePropertyNamesMatch(schema, { pattern }, { path, documentInventory }) {
    const allowed = new RegExp(pattern);
    const results = [];
    const visit = (name, _property, propertyPath) => {
      if (!allowed.test(name)) {
        results.push({ message: `Property name "${name}" does not match ${pattern}.`, path: propertyPath });
      }
    };
    eachProperty(schema, path, visit, documentInventory);
    return results;
  },
);
