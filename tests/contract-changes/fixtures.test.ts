/**
 * The breaking-change gate on fixture pairs: each fixture is one change to base.yaml (old contract = base.yaml,
 * new contract = base.yaml with the fixture's JSON Patch applied), with the verdict a partner's integration
 * would give it and the place the gate must name. About half break a partner, half do not; together they cover
 * schemas (types, `type` arrays with null, defaults, formats, patterns, enums open and closed, readOnly and
 * writeOnly, oneOf and discriminators), parameters (style, explode, place), paths, security schemes and scopes,
 * responses, headers, request bodies and media types, components, info, tags, webhooks, servers and limits.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseYaml } from '@redocly/openapi-core';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import type { Category } from '../../contract-changes/classify.ts';
import { compareContracts } from '../../contract-changes/compare.ts';
import type { JsonObject } from '../../contract-model/document.ts';

interface Fixture {
  description: string;
  breaking: boolean;
  /** For a compatible change: the changelog group it belongs to. */
  category?: Exclude<Category, 'breaking'>;
  /** A JSON Pointer the gate must report (with the verdict above). */
  where: string;
  /** Pointer prefixes where the gate must report nothing: the side a readOnly or writeOnly field is kept out of. */
  nothingUnder?: string[];
  patch: Operation[];
}

const folder = new URL('./fixtures/', import.meta.url);
const base = parseYaml(readFileSync(new URL('base.yaml', folder), 'utf8')) as JsonObject;
const fixtures = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [name.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(name, folder), 'utf8')) as Fixture] as const);

const changed = (fixture: Fixture): JsonObject =>
  fastJsonPatch.applyPatch(structuredClone(base), fixture.patch, true, false).newDocument;

it('has at least 100 fixtures, at least 40 of them breaking and 40 not', () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(100);
  const breaking = fixtures.filter(([, fixture]) => fixture.breaking).length;
  expect(breaking).toBeGreaterThanOrEqual(40);
  expect(fixtures.length - breaking).toBeGreaterThanOrEqual(40);
});

it('finds no change between a contract and itself', async () => {
  expect((await compareContracts(base, structuredClone(base))).changes).toEqual([]);
});

describe.concurrent.each(fixtures)('%s', (_name, fixture) => {
  it(`${fixture.breaking ? 'breaks' : 'does not break'} a partner, reported at its place`, async () => {
    const { changes } = await compareContracts(base, changed(fixture));
    const breaking = changes.filter((change) => change.category === 'breaking');
    const summary = changes.map((change) => `${change.category} ${change.location.pointer}: ${change.what}`);
    if (fixture.breaking) {
      expect(breaking.map((change) => change.location.pointer), summary.join('\n')).toContain(fixture.where);
    } else {
      expect(breaking, summary.join('\n')).toEqual([]);
      const at = changes.find((change) => change.location.pointer === fixture.where);
      expect(at?.category, summary.join('\n')).toBe(fixture.category);
    }
    const kept = changes.filter((change) => fixture.nothingUnder?.some((prefix) => change.location.pointer.startsWith(prefix)));
    expect(kept, summary.join('\n')).toEqual([]);
  });
});
