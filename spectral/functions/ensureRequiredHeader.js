// A create retried after a timeout must not create twice; only a required idempotency key guarantees that.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { followRef } from '../lib/followRef.js';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { name: { type: 'string', minLength: 1 } },
      required: ['name'],
      additionalProperties: false,
    },
  },
  function ensureRequiredHeader(operation, { name }, { path, documentInventory }) {
    const pathItemPath = path.slice(0, -1);
    const pathItem = pathItemPath.reduce((node, key) => node?.[key], documentInventory.resolved);
    // Operation parameters override the path item's; header names are case-insensitive.
    const found =
      findHeader(operation.parameters, name, path, documentInventory) ??
      findHeader(pathItem?.parameters, name, pathItemPath, documentInventory);
    if (found === undefined) {
      return [{ message: `Operation has no "${name}" header parameter.`, path }];
    }
    if (found.parameter.required !== true) {
      return [{ message: `The "${name}" header parameter must be required.`, path: [...found.path, 'required'] }];
    }
    return [];
  },
);

function findHeader(parameters, name, ownerPath, documentInventory) {
  if (!Array.isArray(parameters)) return undefined;
  return parameters
    .map((parameter, index) => {
      const parameterPath = [...ownerPath, 'parameters', index];
      return { parameter: followRef(parameter, parameterPath, documentInventory), path: parameterPath };
    })
    .find(({ parameter }) => parameter?.in === 'header' && String(parameter.name).toLowerCase() === name.toLowerCase());
}
