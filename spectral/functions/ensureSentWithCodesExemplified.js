// A header sent with some error codes only (`x-sent-with-error-codes`) is required on those answers by the mock's
// response check and carried by its forced answers: each code must be one the response answers with (the error
// code of one of its examples), and the header must not also be required always.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { followRef } from '../lib/followRef.js';
import { isPlainObject } from '../lib/schemaWalk.js';

export default createRulesetFunction(
  { input: { type: 'object' }, options: null },
  function ensureSentWithCodesExemplified(response, _options, { path, documentInventory }) {
    const follow = (node, nodePath) => followRef(node, nodePath, documentInventory);
    const results = [];
    const exemplified = exampleCodes(response, path, follow);
    for (const [name, raw] of Object.entries(isPlainObject(response.headers) ? response.headers : {})) {
      const header = follow(raw, [...path, 'headers', name]);
      if (!isPlainObject(header) || !('x-sent-with-error-codes' in header)) continue;
      const at = [...path, 'headers', name, 'x-sent-with-error-codes'];
      const codes = header['x-sent-with-error-codes'];
      if (!Array.isArray(codes) || codes.length === 0 || !codes.every((code) => typeof code === 'string')) {
        results.push({ message: '`x-sent-with-error-codes` must be a non-empty list of error codes.', path: at });
        continue;
      }
      if (header.required === true) results.push({ message: `"${name}" is required always: \`x-sent-with-error-codes\` says it is not.`, path: [...path, 'headers', name, 'required'] });
      codes.forEach((code, index) => {
        if (!exemplified.has(code)) results.push({ message: `"${code}" is the error code of none of this response's examples.`, path: [...at, index] });
      });
    }
    return results;
  },
);

/** The `error.code` of every example of the response's JSON content. */
function exampleCodes(response, path, follow) {
  const codes = new Set();
  for (const [mediaType, raw] of Object.entries(isPlainObject(response.content) ? response.content : {})) {
    const content = follow(raw, [...path, 'content', mediaType]);
    if (!isPlainObject(content)) continue;
    const examples = isPlainObject(content.examples) ? Object.entries(content.examples) : [];
    const values = examples.map(([name, example]) => follow(example, [...path, 'content', mediaType, 'examples', name])?.value);
    if (content.example !== undefined) values.push(content.example);
    for (const value of values) if (typeof value?.error?.code === 'string') codes.add(value.error.code);
  }
  return codes;
}
