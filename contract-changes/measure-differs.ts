/**
 * `npm run measure:differs`: how each candidate judges the gate's fixtures (tests/contract-changes/fixtures), side by
 * side with the verdict each fixture expects. A differ "says breaking" when it rates any change of the fixture
 * major (Redocly's `diff-recommended` rules) or breaking (api-smart-diff). Prints a table and the count of false
 * verdicts per candidate; the result is recorded in contract-changes/README.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseYaml } from '@redocly/openapi-core';
import { apiCompare } from 'api-smart-diff';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import type { JsonObject } from '../contract-model/document.ts';
import { compareContracts } from './compare.ts';
import { prepareForDiff } from './prepare.ts';
import { redoclyDiff, redoclySaysMajor } from './redocly-diff.ts';

const folder = new URL('../tests/contract-changes/fixtures/', import.meta.url);
const base = parseYaml(readFileSync(new URL('base.yaml', folder), 'utf8')) as JsonObject;

type Verdict = boolean | 'error';
const candidates: [string, (before: JsonObject, after: JsonObject) => Promise<Verdict>][] = [
  ['redocly diff', async (before, after) => redoclySaysMajor(await redoclyDiff(before, after))],
  ['redocly diff, prepared input', async (before, after) =>
    redoclySaysMajor(await redoclyDiff(await prepareForDiff(before), await prepareForDiff(after)))],
  ['api-smart-diff', async (before, after) => apiCompare(before, after).diffs.some((diff) => diff.type === 'breaking')],
  ['the gate', async (before, after) => (await compareContracts(before, after)).changes.some((change) => change.category === 'breaking')],
];

const rows: string[][] = [];
const wrong = new Map(candidates.map(([name]) => [name, 0]));
for (const name of readdirSync(folder).filter((file) => file.endsWith('.json')).sort()) {
  const fixture = JSON.parse(readFileSync(new URL(name, folder), 'utf8')) as { breaking: boolean; patch: Operation[] };
  const after = fastJsonPatch.applyPatch(structuredClone(base), fixture.patch, true, false).newDocument;
  const row = [name.replace(/\.json$/, ''), fixture.breaking ? 'breaking' : 'compatible'];
  for (const [candidate, judge] of candidates) {
    // Each candidate gets its own copies: api-smart-diff changes the documents it is given (a discriminator).
    const verdict = await judge(structuredClone(base), structuredClone(after)).catch((): Verdict => 'error');
    const right = verdict === fixture.breaking;
    if (!right) wrong.set(candidate, wrong.get(candidate)! + 1);
    row.push(`${verdict === 'error' ? 'error' : verdict ? 'breaking' : 'compatible'}${right ? '' : ' ✗'}`);
  }
  rows.push(row);
}

const header = ['fixture', 'expected', ...candidates.map(([name]) => name)];
console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log(`| **false verdicts** (of ${rows.length}) | | ${candidates.map(([name]) => wrong.get(name)).join(' | ')} |`);
