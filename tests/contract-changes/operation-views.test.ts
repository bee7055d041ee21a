/**
 * What the review's page shows of each operation a change touches: its docs as text (operation-views.ts), before and
 * after lined up (side-by-side.ts). On small contracts, in process: a field on the side that carries it, an operation
 * added or removed, an edit to a path item touching each of its operations, what did not change folded except the
 * lines a change sits under, and what changed in a line marked by whole words.
 */
import { describe, expect, it } from 'vitest';
import type { ReviewedChange } from '../../contract-changes/entries.ts';
import { operationViews, type ViewLine } from '../../contract-changes/review/operation-views.ts';
import { sharedEnds, sideBySide } from '../../contract-changes/review/side-by-side.ts';
import type { JsonObject } from '../../contract-model/document.ts';

/** A change with one statement used at each pointer: all operationViews reads of the changes. */
const changeAt = (...pointers: string[]): ReviewedChange => ({
  action: 'changed', place: { file: 'openapi/x.yaml', line: 1, path: [] }, subject: '', breaksRelease: false,
  statements: [{ category: 'changed', level: 'patch', what: 'x', breaksRelease: false, uses: pointers.map((pointer) => ({ scope: '', part: '', field: '', pointer })) }],
} as unknown as ReviewedChange);

const account = (extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  required: ['email'],
  properties: {
    id: { type: 'string', readOnly: true, description: 'Given by the API.' },
    password: { type: 'string', writeOnly: true, minLength: 12 },
    email: { type: 'string', format: 'email', maxLength: 254, description: 'Where [we](https://example.com) write, **verified**.' },
    ...extra,
  },
});

const contract = (schema: JsonObject, paths: JsonObject = {}): JsonObject => ({
  openapi: '3.1.0',
  paths: {
    '/accounts': {
      post: {
        operationId: 'createAccount', tags: ['Accounts'], summary: 'Create an account',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: { 201: { description: 'Created.', content: { 'application/json': { schema } } } },
      },
    },
    ...paths,
  },
});

const texts = (lines: ViewLine[] | undefined) => lines?.map((line) => `${'  '.repeat(line.depth)}${line.text}`);

describe('operationViews', () => {
  it("shows what a reader of the docs sees: a readOnly field in responses only, a writeOnly one in requests only, Markdown as text", () => {
    const [view] = operationViews([changeAt('#/paths/~1accounts/post/requestBody')], contract(account()), contract(account()));
    expect(view!.scope).toBe('POST /accounts (createAccount)');
    expect(view!.operation).toEqual({ operationId: 'createAccount', tag: 'Accounts' });
    expect(texts(view!.after)).toEqual([
      'Create an account',
      'Parameters',
      '  header Idempotency-Key*  string, <= 255 characters',
      'Request body (required)',
      '  application/json: object',
      '    password  string, >= 12 characters',
      '    email*  string <email>, <= 254 characters — Where we write, verified.',
      'Response 201 — Created.',
      '  application/json: object',
      '    id  string — Given by the API.',
      '    email*  string <email>, <= 254 characters — Where we write, verified.',
    ]);
  });

  it('has no before for an operation the change adds, no after for one it removes, and every operation of a path item edited', () => {
    const health = { '/health': { get: { operationId: 'health', responses: { 200: { description: 'Up.' } } }, head: { operationId: 'healthHead', responses: { 200: { description: 'Up.' } } } } };
    const added = operationViews([changeAt('#/paths/~1health/get')], contract(account()), contract(account(), health));
    expect(added.map((view) => [view.scope, view.before, texts(view.after)])).toEqual([['GET /health (health)', undefined, ['(no summary)', 'Response 200 — Up.']]]);
    const removed = operationViews([changeAt('#/paths/~1health/get')], contract(account(), health), contract(account()));
    expect(removed.map((view) => [view.scope, view.after === undefined])).toEqual([['GET /health (health)', true]]);
    const pathItem = operationViews([changeAt('#/paths/~1health/parameters')], contract(account(), health), contract(account(), health));
    expect(pathItem.map((view) => view.scope)).toEqual(['GET /health (health)', 'HEAD /health (healthHead)']);
    expect(operationViews([changeAt('#/servers/0/url')], contract(account()), contract(account()))).toEqual([]);
  });
});

describe('sideBySide', () => {
  const line = (depth: number, text: string): ViewLine => ({ depth, text });
  const before = [line(0, 'Summary'), line(0, 'Request body'), line(1, 'a'), line(1, 'b'), line(2, 'b1'), line(2, 'b2'), line(2, 'b3'), line(2, 'b4'), line(0, 'Response 200'), line(1, 'c'), line(1, 'd'), line(1, 'e')];

  it('keeps a change beside what it was, under the lines that hold it, and folds the rest into counts', () => {
    const after = before.map((each) => (each.text === 'b4' ? line(2, 'b4*') : each));
    after.splice(11, 0, line(1, 'new'));
    const rows = sideBySide(before, after).map((row) => (row.kind === 'folded' ? `⋯ ${row.lines}` : row.kind === 'same' ? `= ${row.before.text}` : `${row.kind} ${'before' in row ? row.before.text : ''}|${'after' in row ? row.after.text : ''}`));
    expect(rows).toEqual(['⋯ 1', '= Request body', '⋯ 1', '= b', '⋯ 2', '= b3', 'changed b4|b4*', '= Response 200', '⋯ 1', '= d', 'added |new', '= e']);
  });

  it('shows a whole view as added or removed when there is no other side', () => {
    expect(sideBySide(undefined, [line(0, 'x')])).toEqual([{ kind: 'added', after: line(0, 'x') }]);
    expect(sideBySide([line(0, 'x')], undefined)).toEqual([{ kind: 'removed', before: line(0, 'x') }]);
  });

  it('marks what changed in a line by whole words', () => {
    const differ = (a: string, b: string) => {
      const { prefix, suffix } = sharedEnds(a, b);
      return [a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix)];
    };
    expect(differ('status  string, Enum: "A" "C" — Where.', 'status  string, Enum: "A" "B" "C" — Where.')).toEqual(['', '"B" ']);
    expect(differ('count  integer, <= 100', 'count  integer, <= 1000')).toEqual(['100', '1000']);
    expect(differ('taxId  string', 'taxId*  string')).toEqual(['taxId ', 'taxId* ']);
  });
});
