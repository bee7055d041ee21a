/**
 * `x-pattern-description` only words a pattern, and the gate must judge the patterns beside it as if it were not
 * there: Redocly's differ pairs `oneOf` branches by likeness, and once every pattern of a branch gained its words
 * and some changed too, it took the branches for new ones (each "alternative removed", breaking, and nothing said of
 * the patterns). Here a request body of two branches, each with fourteen patterns, all described and all changed.
 */
import { readFileSync } from 'node:fs';
import { parseYaml } from '@redocly/openapi-core';
import { expect, it } from 'vitest';
import { compareContracts } from '../../contract-changes/compare.ts';
import type { JsonObject } from '../../contract-model/document.ts';

const base = parseYaml(readFileSync(new URL('./fixtures/base.yaml', import.meta.url), 'utf8')) as any;
const line = { description: 'A line.', type: 'string', maxLength: 40, pattern: '^\\S(.*\\S)?$' };
const branch = (kind: string) => ({
  description: `A ${kind} gizmo.`,
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: { kind: { description: 'Its kind.', type: 'string', const: kind }, ...Object.fromEntries(Array.from({ length: 14 }, (_, n) => [`line${n}`, { ...line }])) },
});
const body = { required: true, content: { 'application/json': { schema: { oneOf: [branch('A'), branch('B')] } } } };
base.paths['/v1/gizmos'] = { post: { operationId: 'createGizmo', summary: 'Create a gizmo', description: 'Creates a gizmo.', requestBody: body, responses: { '201': { description: 'Created.' } } } };

/** `base` with every pattern of the gizmo's branches described, and changed to `pattern` when one is given. */
function described(pattern?: string): JsonObject {
  const after = structuredClone(base);
  for (const { properties } of after.paths['/v1/gizmos'].post.requestBody.content['application/json'].schema.oneOf) {
    for (const property of Object.values(properties) as Record<string, unknown>[]) {
      if (property.pattern === undefined) continue;
      property['x-pattern-description'] = 'Must not start or end with white space, nor hold a control character.';
      if (pattern) property.pattern = pattern;
    }
  }
  return after;
}

const branchPointer = (n: number) => `#/paths/~1v1~1gizmos/post/requestBody/content/application~1json/schema/oneOf/${n}`;

it('lists each pattern description added as a compatible change, where it is', async () => {
  const { changes } = await compareContracts(base, described());
  expect(changes.filter((change) => change.category === 'breaking')).toEqual([]);
  expect(changes.map((change) => change.location.pointer)).toContain(`${branchPointer(1)}/properties/line13/x-pattern-description`);
  expect(changes).toHaveLength(28);
});

it('judges patterns changed beside their new descriptions where they are, not as branches removed', async () => {
  const { changes } = await compareContracts(base, described('^[^\\s\\x00-\\x1F]([^\\x00-\\x1F]*[^\\s\\x00-\\x1F])?$'));
  const breaking = changes.filter((change) => change.category === 'breaking').map((change) => change.location.pointer);
  expect(breaking).not.toContain(branchPointer(0));
  expect(breaking).toContain(`${branchPointer(0)}/properties/line0/pattern`);
  expect(breaking).toHaveLength(28);
});
