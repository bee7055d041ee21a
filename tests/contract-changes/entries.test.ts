/**
 * One entry per edit of openapi/: the uses of a shared schema's change, on both sides of the exchange, are one
 * entry at the edit's file and line, each verdict once with the operations it applies to.
 */
import { expect, it } from 'vitest';
import type { ClassifiedChange } from '../../contract-changes/classify.ts';
import { statementText, titleOf, toEntries, type PlacedChange } from '../../contract-changes/entries.ts';

const place = (file: string, line: number, path: string[]) => ({ file, line, path });
const use = (pointer: string, scope: string, part: string, judged: Partial<ClassifiedChange>, at = place('openapi/components/schemas/Colour.yaml', 4, ['enum'])): PlacedChange => ({
  change: { category: 'breaking', level: 'major', what: 'enum values added: "green"', why: 'clients switch', kind: 'modified', location: { pointer, scope, part, field: '' }, ...judged },
  place: at, breaksRelease: judged.category === undefined, contract: {},
});

it('gathers the uses of one edit into one entry, each verdict once with where it applies', () => {
  const [entry, ...others] = toEntries([
    use('#/paths/~1a/get/responses/200/content/application~1json/schema/enum', 'GET /a (listA)', 'response 200 body', {}),
    use('#/paths/~1b/get/responses/200/content/application~1json/schema/enum', 'GET /b (listB)', 'response 200 body', {}),
    use('#/paths/~1a/get/parameters/0/schema/enum', 'GET /a (listA)', 'query parameter colour', { category: 'added', level: 'minor', what: 'enum values accepted: "green"' }),
  ]);
  expect(others).toEqual([]);
  expect(titleOf(entry!)).toBe('Colour');
  expect(entry!.breaksRelease).toBe(true);
  expect(entry!.statements.map(statementText)).toEqual([
    'enum values added: "green" — in the responses of 2 operations: GET /a (listA), GET /b (listB)',
    'enum values accepted: "green" — in the query parameter colour of GET /a (listA)',
  ]);
});

it('names what was removed, which the place it was found at does not', () => {
  const removed = use('#/paths/~1a/post/requestBody/content/application~1json/schema/properties/middleName', 'POST /a (createA)', 'request body',
    { kind: 'removed', what: 'property removed' }, place('openapi/components/schemas/Person.yaml', 3, ['properties']));
  expect(titleOf(toEntries([removed])[0]!)).toBe('Person › /middleName');
});
