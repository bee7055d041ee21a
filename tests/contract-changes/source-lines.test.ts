/**
 * A JSON Pointer into the prepared contract (every $ref inlined, every allOf merged) is found in the source files
 * as they were written: through $refs into other files, into the allOf member that holds a merged property, and at
 * the deepest place that still exists for something removed.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSourceLines } from '../../contract-changes/source-lines.ts';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
const widgets = '#/paths/~1v1~1widgets';

it('follows local $refs and allOf members within one file', () => {
  const placeOf = createSourceLines(join(fixtures, 'base.yaml'), fixtures);
  // Widget's status is in the second allOf member of Widget, reached through the 201 response's $ref.
  expect(placeOf(`${widgets}/post/responses/201/content/application~1json/schema/properties/status/enum`)).toMatchObject({ file: 'base.yaml', line: 251 });
  // WidgetName is shared: its maxLength is written once, on line 173, whichever use the change was found at.
  expect(placeOf(`${widgets}/post/requestBody/content/application~1json/schema/properties/name/maxLength`)).toMatchObject({ file: 'base.yaml', line: 173 });
  expect(placeOf(`${widgets}/get/responses/200/content/application~1json/schema/items/properties/name/maxLength`)).toMatchObject({ file: 'base.yaml', line: 173 });
});

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'source-lines-'));
  await writeFile(join(folder, 'root.yaml'), 'openapi: 3.1.0\npaths:\n  /a:\n    $ref: paths/a.yaml\n');
  await mkdir(join(folder, 'paths'));
  await writeFile(join(folder, 'paths', 'a.yaml'), 'get:\n  responses:\n    \'200\':\n      content:\n        application/json:\n          schema:\n            $ref: ../Thing.yaml\n');
  await writeFile(join(folder, 'Thing.yaml'), 'type: object\nproperties:\n  id:\n    type: string\n    maxLength: 9\n');
});
afterAll(() => rm(folder, { recursive: true, force: true }));

it('follows $refs into other files, and finds a removed place where it was', () => {
  const placeOf = createSourceLines(join(folder, 'root.yaml'), folder);
  const schema = '#/paths/~1a/get/responses/200/content/application~1json/schema';
  expect(placeOf(`${schema}/properties/id/maxLength`)).toMatchObject({ file: 'Thing.yaml', line: 5 });
  expect(placeOf(`${schema}/properties/gone`)).toMatchObject({ file: 'Thing.yaml', line: 2 });
  // The reference itself is where it is written, not in the file it names.
  expect(placeOf(schema)).toMatchObject({ file: 'paths/a.yaml', line: 6 });
});
