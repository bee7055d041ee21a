/**
 * The differ pairs what is the same thing before and after a change: parameters by place and name, `oneOf` branches
 * by likeness, a path by its shape, a map entry renamed with its value unchanged; only what differs is reported.
 */
import { describe, expect, it } from 'vitest';
import { detectChanges } from '../../contract-changes/detect.ts';
import type { JsonObject } from '../../contract-model/document.ts';

const operation = (extra: JsonObject): JsonObject => ({ openapi: '3.1.0', paths: { '/v1/widgets': { get: { operationId: 'listWidgets', ...extra } } } });
const at = '#/paths/~1v1~1widgets/get';
const found = (before: JsonObject, after: JsonObject) => detectChanges(before, after).map(({ kind, pointer }) => `${kind} ${pointer}`);

describe('lists of things with an identity', () => {
  const limit = { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } };
  const cursor = { name: 'cursor', in: 'query', schema: { type: 'string' } };

  it('finds nothing when parameters are only reordered, and the change of the one that changed', () => {
    expect(found(operation({ parameters: [limit, cursor] }), operation({ parameters: [cursor, limit] }))).toEqual([]);
    const raised = { ...limit, schema: { type: 'integer', maximum: 200 } };
    expect(found(operation({ parameters: [limit, cursor] }), operation({ parameters: [cursor, raised] }))).toEqual([`modified ${at}/parameters/1/schema/maximum`]);
  });

  it('reports each parameter of a list that appears, and one moved to a header as the same parameter', () => {
    expect(found(operation({}), operation({ parameters: [limit, cursor] }))).toEqual([`added ${at}/parameters/0`, `added ${at}/parameters/1`]);
    expect(found(operation({ parameters: [limit] }), operation({ parameters: [{ ...limit, in: 'header' }] }))).toEqual([`modified ${at}/parameters/0/in`]);
  });

  it('pairs oneOf branches by likeness, not by position, and compares data (an enum) whole', () => {
    const circle = { type: 'object', required: ['kind'], properties: { kind: { const: 'circle' }, radius: { type: 'integer' } } };
    const square = { type: 'object', required: ['kind'], properties: { kind: { const: 'square' }, side: { type: 'integer' } } };
    const body = (...branches: JsonObject[]) => operation({ responses: { '200': { content: { 'application/json': { schema: { oneOf: branches, enum: [1] } } } } } });
    const schema = `${at}/responses/200/content/application~1json/schema`;
    expect(found(body(circle, square), body(square, circle))).toEqual([]);
    const wider = { ...square, properties: { ...square.properties, side: { type: 'integer', maximum: 9 } } };
    expect(found(body(circle, square), body(wider, circle))).toEqual([`added ${schema}/oneOf/0/properties/side/maximum`]);
  });
});

describe('maps of names', () => {
  it('reads a path whose parameter was renamed as the same path, renamed', () => {
    const path = (name: string) => ({ openapi: '3.1.0', paths: { [`/v1/widgets/{${name}}`]: { get: { parameters: [{ name, in: 'path', required: true }] } } } });
    expect(found(path('widgetId'), path('id'))).toEqual(['modified #/paths/~1v1~1widgets~1{id}/get/parameters/0/name', 'modified #/paths/~1v1~1widgets~1{id}/key']);
  });

  it('reads a lone entry that moved, unchanged, to a new name as renamed; otherwise as removed and added', () => {
    const responses = (statuses: Record<string, JsonObject>) => operation({ responses: statuses });
    expect(found(responses({ '201': { description: 'Made.' } }), responses({ '200': { description: 'Made.' } }))).toEqual([`modified ${at}/responses/200/key`]);
    expect(found(responses({ '201': { description: 'Made.' } }), responses({ '200': { description: 'Done.' } }))).toEqual([`added ${at}/responses/200`, `removed ${at}/responses/201`]);
  });
});
