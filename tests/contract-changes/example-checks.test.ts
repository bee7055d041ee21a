/**
 * An example is checked as what it is: against the fields its side carries (no writeOnly field required of a
 * response, no readOnly one of a request), and against the oneOf branch it illustrates, each problem once.
 */
import { describe, expect, it } from 'vitest';
import { asSideSees, ofIllustratedBranches } from '../../contract-changes/review/example-checks.ts';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';

const compiler = schemaCompilerOf({ openapi: '3.1.0', info: { title: 'examples', version: '1' }, paths: {} } as unknown as ContractDocument);
const problems = (schema: JsonObject, value: unknown): string[] => {
  const validate = compiler.compile(schema);
  return validate(value) ? [] : describeSchemaErrors('the example', ofIllustratedBranches(validate.errors ?? []));
};

const person = {
  type: 'object', required: ['name', 'id', 'taxId'],
  properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' }, taxId: { type: 'string', writeOnly: true } },
};

describe('the side an example is on', () => {
  it('requires no readOnly field of a request, and no writeOnly field of a response', () => {
    expect(problems(asSideSees(person, 'request'), { name: 'Ada', taxId: '123' })).toEqual([]);
    expect(problems(asSideSees(person, 'response'), { name: 'Ada', id: 'p_1' })).toEqual([]);
    expect(problems(asSideSees(person, 'response'), { id: 'p_1' })).toEqual(["the example: must have required property 'name'"]);
  });
});

describe('the branch an example illustrates', () => {
  const llc = { title: 'Llc', type: 'object', additionalProperties: false, required: ['kind', 'members'], properties: { kind: { const: 'LLC' }, members: { type: 'array' } } };
  const corp = { title: 'Corp', type: 'object', additionalProperties: false, required: ['kind', 'officers'], properties: { kind: { const: 'CORP' }, officers: { type: 'array' } } };

  it('is the one its discriminator names: nothing is said of the other', () => {
    const schema = { oneOf: [llc, corp], discriminator: { propertyName: 'kind' } };
    expect(problems(schema, { kind: 'CORP' })).toEqual(["the example: must have required property 'officers'"]);
  });

  it('without a discriminator, the one it fails least; the oneOf error only when that branch has nothing to say', () => {
    expect(problems({ oneOf: [llc, corp] }, { kind: 'CORP', officers: [], extra: 1 })).toEqual(['the example: must NOT have additional properties (extra)']);
    expect(problems({ oneOf: [{ type: 'string' }, { type: 'string', maxLength: 5 }] }, 'ab')).toEqual(['the example: must match exactly one schema in oneOf']);
  });
});
