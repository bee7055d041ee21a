/**
 * The client runs outside Node (browsers, workers): none of its modules may import a `node:` built-in, nor the
 * whole contract (it reads generated/client-contract.ts, a few kilobytes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const folder = new URL('../../client/', import.meta.url);

it.each(readdirSync(folder).filter((name) => name.endsWith('.ts')))('client/%s imports no node: module', (name) => {
  const source = readFileSync(new URL(name, folder), 'utf8');
  expect(source.match(/from ['"]node:[^'"]+['"]/g) ?? []).toEqual([]);
});

it.each(readdirSync(folder).filter((name) => name.endsWith('.ts')))('client/%s does not import the whole contract', (name) => {
  const source = readFileSync(new URL(name, folder), 'utf8');
  expect(source).not.toMatch(/from ['"][^'"]*generated\/openapi(\.dereferenced)?\.json['"]/);
});
