// An operation without a name, a summary, an explanation or a tag is invisible or unusable in the docs and clients.
import { createRulesetFunction } from '@stoplight/spectral-core';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { fields: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['fields'],
      additionalProperties: false,
    },
  },
  function ensureNonEmptyFields(target, { fields }, { path }) {
    return fields
      .filter((field) => isEmpty(target[field]))
      .map((field) => ({ message: `"${field}" is missing or empty.`, path: [...path, field] }));
  },
);

function isEmpty(value) {
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return value === undefined || value === null;
}
