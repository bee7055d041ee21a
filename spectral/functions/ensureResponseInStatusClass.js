// A caller needs to know both what success looks like and how failure is reported, for every operation.
import { createRulesetFunction } from '@stoplight/spectral-core';

export default createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: {
        classes: { type: 'array', items: { type: 'string', pattern: '^[1-5]XX$' }, minItems: 1 },
      },
      required: ['classes'],
      additionalProperties: false,
    },
  },
  function ensureResponseInStatusClass(operation, { classes }, { path }) {
    const statuses = Object.keys(operation.responses ?? {});
    // `4XX` is a range of the class and `404` a member of it: both show how the class is answered.
    const covered = statuses.some(
      (status) => /^[1-5](\d\d|XX)$/i.test(status) && classes.some((range) => status[0] === range[0]),
    );
    if (covered) return [];
    return [{ message: `Operation has no ${classes.join(' or ')} response.`, path: [...path, 'responses'] }];
  },
);
