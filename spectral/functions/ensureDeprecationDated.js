// A deprecation partners can plan for: the date it was announced, the date it stops working (at least six months
// later, as the contract's "Versioning and deprecation" section promises) and what to use instead. The mock turns
// the dates into the `Deprecation` and `Sunset` headers of a deprecated operation.
import { createRulesetFunction } from '@stoplight/spectral-core';
import { isPlainObject } from '../lib/schemaWalk.js';

const MIN_NOTICE_MONTHS = 6;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export default createRulesetFunction(
  { input: { type: 'object' }, options: null },
  function ensureDeprecationDated(node, _options, { path }) {
    const dating = node['x-deprecation'];
    if (node.deprecated !== true) {
      return [{ message: '`x-deprecation` is only for what is marked `deprecated: true`.', path: [...path, 'x-deprecation'] }];
    }
    if (!isPlainObject(dating)) {
      return [{ message: 'Deprecated without `x-deprecation: { since, sunset, replacement }`.', path: [...path, 'deprecated'] }];
    }
    const at = [...path, 'x-deprecation'];
    const results = [];
    for (const field of ['since', 'sunset']) {
      if (!isDate(dating[field])) results.push({ message: `\`x-deprecation.${field}\` must be a date, YYYY-MM-DD.`, path: [...at, field] });
    }
    if (typeof dating.replacement !== 'string' || dating.replacement.trim().length < 10) {
      results.push({ message: '`x-deprecation.replacement` must say what to use instead.', path: [...at, 'replacement'] });
    }
    const unknown = Object.keys(dating).filter((key) => !['since', 'sunset', 'replacement'].includes(key));
    for (const key of unknown) results.push({ message: `\`x-deprecation.${key}\` is not a known field.`, path: [...at, key] });
    if (isDate(dating.since) && isDate(dating.sunset) && !enoughNotice(dating.since, dating.sunset)) {
      const message = `\`x-deprecation.sunset\` must be at least ${MIN_NOTICE_MONTHS} months after \`since\`.`;
      results.push({ message, path: [...at, 'sunset'] });
    }
    return results;
  },
);

function isDate(value) {
  // YAML reads an unquoted 2027-06-30 as a Date; a quoted one stays a string.
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value));
}

function enoughNotice(since, sunset) {
  const start = new Date(since);
  const earliest = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + MIN_NOTICE_MONTHS, start.getUTCDate()));
  return new Date(sunset).getTime() >= earliest.getTime();
}
