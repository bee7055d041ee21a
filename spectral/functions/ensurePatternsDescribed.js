// A refused pattern must be explained to the person who typed the value: the error states the rule in words, taken
// from the contract, since a regular expression means nothing on a form.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { eachSchema } from '../lib/schemaWalk.js';

const extension = 'x-pattern-description';
// Said as is to the sender beside the field, so it reads as one sentence of its own: "Must be six digits."
const sentence = /^[A-Z].*\.$/s;

export default createRulesetFunction(
  { input: { type: 'object' }, options: null },
  function ensurePatternsDescribed(schema, _options, { path, documentInventory }) {
    const results = [];
    const visit = (node, nodePath) => {
      if (typeof node.pattern !== 'string') return;
      const described = node[extension];
      if (described === undefined) {
        results.push({ message: `Pattern without \`${extension}\`: state its rule in words, for the errors that refuse it.`, path: nodePath });
      } else if (typeof described !== 'string' || !sentence.test(described.trim())) {
        results.push({ message: `\`${extension}\` must be a sentence, a capital first and a full stop last.`, path: [...nodePath, extension] });
      }
    };
    eachSchema(schema, path, visit, documentInventory);
    return results;
  },
);
