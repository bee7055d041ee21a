import { readFile } from 'node:fs/promises';
import { parseYaml } from '@stoplight/spectral-parsers';
import { beforeAll, describe, expect, it } from 'vitest';
import { houseRules, lint, repoRoot, type LintResult } from './lint.ts';

const ruleset = `${repoRoot}.spectral.yaml`;
const fixture = (name: string) => `${repoRoot}tests/spectral/fixtures/${name}`;

const ERROR = 0;
const WARN = 1;

const post = (path: string) => ['paths', path, 'post'];
const widgetsPostJson = (...rest: string[]) => [
  ...post('/widgets'), 'requestBody', 'content', 'application/json', 'schema', ...rest,
];
const webhookJson = (...rest: string[]) => [
  'webhooks', 'widget.created', 'post', 'requestBody', 'content', 'application/json', 'schema', ...rest,
];
const badRequestExample = (...rest: string[]) => [
  ...post('/widgets'), 'responses', '400', 'content', 'application/json',
  'examples', 'unknownCodes', 'value', 'error', ...rest,
];

/** Where bad.yaml breaks each house rule. A missing field is reported at its parent, the nearest place that exists. */
const breaches: Record<string, { severity: number; paths: string[][] }> = {
  'root-security-required': { severity: WARN, paths: [[]] },
  'operation-documented': {
    severity: ERROR,
    paths: [
      ['paths', '/widgets/{widgetId}', 'get'],
      ['webhooks', 'widget.created', 'post', 'tags'],
    ],
  },
  'operation-2xx-response': { severity: ERROR, paths: [['webhooks', 'widget.created', 'post', 'responses']] },
  'operation-error-response': { severity: ERROR, paths: [['paths', '/widgets/{widgetId}', 'get', 'responses']] },
  'create-idempotency-key': {
    severity: ERROR,
    paths: [post('/widgets'), [...post('/gadgets'), 'parameters', '0', 'required']],
  },
  'response-body-envelope': {
    severity: ERROR,
    paths: [
      [...post('/widgets'), 'responses', '201', 'content', 'application/json', 'schema', 'properties', 'data'],
      [...post('/gadgets'), 'responses', '200', 'content', 'application/json', 'schema'],
    ],
  },
  'error-example-codes-in-enum': {
    severity: ERROR,
    paths: [
      badRequestExample('code'),
      badRequestExample('details', '1', 'code'),
      [...post('/gadgets'), 'responses', '404', 'content', 'application/json', 'example', 'error', 'code'],
    ],
  },
  'sent-with-error-codes-exemplified': {
    severity: ERROR,
    paths: [
      [...post('/gadgets'), 'responses', '404', 'headers', 'Retry-After', 'required'],
      [...post('/gadgets'), 'responses', '404', 'headers', 'Retry-After', 'x-sent-with-error-codes', '0'],
    ],
  },
  'property-description-and-example': {
    severity: ERROR,
    paths: [
      widgetsPostJson('properties', 'colour'),
      widgetsPostJson('properties', 'size'),
      webhookJson('properties', 'event_id'),
    ],
  },
  'enum-openness-declared': {
    severity: ERROR,
    paths: [
      ['components', 'schemas', 'ErrorEnvelope', 'properties', 'error', 'properties', 'code'],
      ['components', 'schemas', 'ErrorEnvelope', 'properties', 'error', 'properties', 'details', 'items', 'properties', 'code', 'x-open-enum'],
    ],
  },
  'enum-openness-on-enum': { severity: ERROR, paths: [widgetsPostJson('properties', 'size')] },
  'deprecation-dated': {
    severity: ERROR,
    paths: [
      ['paths', '/widgets/{widgetId}', 'get', 'x-deprecation', 'replacement'],
      ['paths', '/widgets/{widgetId}', 'get', 'x-deprecation', 'sunset'],
      ['paths', '/widgets/{widgetId}', 'get', 'parameters', '0', 'x-deprecation'],
    ],
  },
  // Both headers are missing; Spectral reports one finding per message and place.
  'deprecated-operation-headers': { severity: ERROR, paths: [['paths', '/widgets/{widgetId}', 'get', 'responses', '200']] },
  'pattern-described': {
    severity: ERROR,
    paths: [
      widgetsPostJson('properties', 'widget_name'),
      ['paths', '/widgets/{widgetId}', 'get', 'parameters', '0', 'schema', 'x-pattern-description'],
      ['components', 'schemas', 'ErrorEnvelope', 'properties', 'error', 'properties', 'details', 'items', 'properties', 'field'],
    ],
  },
  'property-names-camel-case': {
    severity: ERROR,
    paths: [widgetsPostJson('properties', 'widget_name'), webhookJson('properties', 'event_id')],
  },
};

const sortPaths = (paths: string[][]) => paths.map((path) => JSON.stringify(path)).sort();

let bad: LintResult[];
let good: LintResult[];

beforeAll(async () => {
  [bad, good] = await Promise.all([lint(fixture('bad.yaml'), ruleset), lint(fixture('good.yaml'), ruleset)]);
}, 60_000);

it('covers every house rule of .spectral.yaml, including each one built on a custom function', async () => {
  const config = parseYaml(await readFile(ruleset, 'utf8')).data as {
    functions: string[];
    rules: Record<string, { then?: { function?: string } | { function?: string }[] }>;
  };
  const onCustomFunctions = Object.entries(config.rules)
    .filter(([, rule]) => [rule.then ?? []].flat().some((then) => config.functions.includes(then.function ?? '')))
    .map(([code]) => code);
  const onCoreFunctions = ['root-security-required', 'enum-openness-declared', 'enum-openness-on-enum', 'deprecated-operation-headers'];
  expect([...onCustomFunctions, ...onCoreFunctions].sort()).toEqual([...houseRules].sort());
  expect(Object.keys(breaches).sort()).toEqual([...houseRules].sort());
});

describe.each(Object.entries(breaches))('house rule %s', (code, { severity, paths }) => {
  it('fires exactly where the bad fixture breaks it', () => {
    const fired = bad.filter((result) => result.code === code);
    expect(sortPaths(fired.map((result) => result.path))).toEqual(sortPaths(paths));
    expect(fired.every((result) => result.severity === severity)).toBe(true);
  });

  it('stays silent on the good fixture', () => {
    expect(good.filter((result) => result.code === code)).toEqual([]);
  });
});

describe('house rule messages', () => {
  it.each([
    ['create-idempotency-key', 'Operation has no "Idempotency-Key" header parameter.'],
    ['create-idempotency-key', 'The "Idempotency-Key" header parameter must be required.'],
    ['error-example-codes-in-enum', '"E_NOT_IN_THE_CATALOGUE" is not in the enum of "error.code".'],
    ['error-example-codes-in-enum', '"E_NOT_A_FIELD_CODE" is not in the enum of "error.details.*.code".'],
    ['error-example-codes-in-enum', 'The schema declares no enum for "error.code" to check "E_NOT_FOUND" against.'],
    ['sent-with-error-codes-exemplified', '"E_GONE_AWAY" is the error code of none of this response\'s examples.'],
    ['sent-with-error-codes-exemplified', '"Retry-After" is required always: `x-sent-with-error-codes` says it is not.'],
    ['response-body-envelope', 'Schema has the property "data"; only payload, error are allowed.'],
    ['response-body-envelope', 'Schema does not require "error".'],
    ['property-description-and-example', 'Property "colour" has no example (`examples` or `example`).'],
    ['property-description-and-example', 'Property "size" has no description.'],
    ['deprecation-dated', '`x-deprecation.sunset` must be at least 6 months after `since`.'],
    ['pattern-described', 'Pattern without `x-pattern-description`: state its rule in words, for the errors that refuse it.'],
    ['pattern-described', '`x-pattern-description` must be a sentence, a capital first and a full stop last.'],
    ['deprecation-dated', '`x-deprecation` is only for what is marked `deprecated: true`.'],
  ])('%s says: %s', (code, message) => {
    expect(bad).toContainEqual(expect.objectContaining({ code, message }));
  });
});
