import { describe, expect, it } from 'vitest';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { sampleContract } from './fixtures.ts';

const compiler = schemaCompilerOf(sampleContract());

describe('describeSchemaErrors', () => {
  it('gives each error a line, with the pointer of the offending value', () => {
    const validate = compiler.component('Thing');
    expect(validate({ id: 1, parts: [1] })).toBe(false);
    expect(describeSchemaErrors('body', validate.errors)).toEqual(['body/id: must be string', 'body/parts/0: must be string']);
  });

  it('shows the first five and counts the rest', () => {
    const validate = compiler.compile({ type: 'array', items: { $ref: '#/components/schemas/Thing' } });
    expect(validate(Array.from({ length: 8 }, () => ({})))).toBe(false);
    const lines = describeSchemaErrors('body', validate.errors);
    expect(lines).toHaveLength(6);
    expect(lines[4]).toBe("body/4: must have required property 'id'");
    expect(lines[5]).toBe('body: … and 3 more');
  });

  it('says nothing when there is nothing wrong', () => {
    expect(describeSchemaErrors('body', null)).toEqual([]);
  });
});

describe('the schema compiler', () => {
  it('compiles a component schema once, by its name', () => {
    expect(compiler.component('Thing')).toBe(compiler.component('Thing'));
    expect(compiler.component('Thing')({ id: 't_1' })).toBe(true);
    expect(compiler.component('Problem')({})).toBe(false);
  });
});
