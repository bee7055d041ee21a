/**
 * A check's cost follows what the contract lets a value hold, not what a sender puts in it: the verdict stops at the
 * first problem, and the listing of problems reads a value cut to one past each limit. Cost is counted here as the
 * items a check reads (a proxy counts them), never timed.
 */
import { describe, expect, it } from 'vitest';
import type { ContractDocument } from '../../contract-model/document.ts';
import { schemaCompilerOf, listedProblemsLimit } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';

const document: ContractDocument = {
  openapi: '3.1.0',
  paths: {},
  components: {
    schemas: {
      Member: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'share'],
        properties: { name: { type: 'string', minLength: 1, maxLength: 10 }, share: { type: 'integer', maximum: 100 } },
      },
      Formation: {
        type: 'object',
        additionalProperties: false,
        required: ['members'],
        properties: {
          members: { type: 'array', maxItems: 3, items: { $ref: '#/components/schemas/Member' } },
          tags: { type: 'array', maxItems: 2, items: { type: 'string' }, uniqueItems: true },
          kind: { oneOf: [{ $ref: '#/components/schemas/Member' }, { type: 'array', maxItems: 5, items: { type: 'integer' } }] },
        },
      },
      Unbounded: { type: 'array', items: { type: 'integer' } },
      // A seed's shape: limits that are each reasonable, and multiply.
      Customers: {
        type: 'array',
        maxItems: 10_000,
        items: {
          type: 'object',
          required: ['email'],
          properties: { email: { type: 'string' }, companies: { type: 'array', minItems: 1, maxItems: 100, items: { $ref: '#/components/schemas/Member' } } },
        },
      },
    },
  },
};
const compiler = schemaCompilerOf(document);

/** An array that counts the reads of its items. */
function counted<T>(items: T[]): { array: T[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { array, reads: () => reads };
}

function readsToRefuse(memberCount: number): number {
  const members = counted(Array.from({ length: memberCount }, () => ({})));
  const check = compiler.component('Formation');
  expect(check({ members: members.array })).toBe(false);
  return members.reads();
}

describe('a check of a value far past its limits', () => {
  it('reads as many items of an array of a hundred thousand as of one of ten', () => {
    const few = readsToRefuse(10);
    expect(readsToRefuse(100_000)).toBe(few);
    expect(few).toBeLessThanOrEqual(2 * 4);
  });

  it('still lists the array\'s own problem and the problems of the items it keeps, one past the limit', () => {
    const check = compiler.component('Formation');
    expect(check({ members: Array.from({ length: 50_000 }, () => ({})) })).toBe(false);
    const listed = (check.errors ?? []).map((error) => `${error.instancePath} ${error.keyword}`);
    expect(listed).toContain('/members maxItems');
    // Items 0 to 3 (one past maxItems 3), each missing its two required properties.
    expect(listed.filter((line) => line.endsWith('required'))).toHaveLength(8);
    expect(listed.some((line) => line.startsWith('/members/4'))).toBe(false);
    expect(check.more).toBe(false);
  });

  it('lists within a limit exactly what the full value holds', () => {
    const check = compiler.component('Formation');
    const value = { members: [{ name: '', share: 1 }, { name: 'Ada', share: 101 }], tags: ['a', 'a'] };
    expect(check(value)).toBe(false);
    expect((check.errors ?? []).map((error) => `${error.instancePath} ${error.keyword}`)).toEqual([
      '/members/0/name minLength',
      '/members/1/share maximum',
      '/tags uniqueItems',
    ]);
  });

  it('keeps the limits of every oneOf branch a value may be read against', () => {
    const check = compiler.component('Formation');
    expect(check({ members: [{ name: 'Ada', share: 100 }], kind: Array.from({ length: 1000 }, () => 'x') })).toBe(false);
    // The array branch allows 5 items: the six kept are each listed, none further.
    const items = (check.errors ?? []).filter((error) => /^\/kind\/\d+$/.test(error.instancePath)).map((error) => error.instancePath);
    expect(new Set(items)).toEqual(new Set(['/kind/0', '/kind/1', '/kind/2', '/kind/3', '/kind/4', '/kind/5']));
  });

  it('bounds the listing of unknown properties, and says there were more', () => {
    const check = compiler.component('Member');
    const value: Record<string, unknown> = { name: 'Ada', share: 1 };
    for (let index = 0; index < 20_000; index += 1) value[`extra${index}`] = index;
    expect(check(value)).toBe(false);
    expect(check.errors).toHaveLength(listedProblemsLimit);
    expect(check.more).toBe(true);
    expect(describeSchemaErrors('body', check.errors, check.more).at(-1)).toBe(`body: … and over ${listedProblemsLimit - 5} more`);
  });

  it('keeps a property the schema names even when it comes after a flood of unknown ones', () => {
    const check = compiler.component('Member');
    const value: Record<string, unknown> = {};
    for (let index = 0; index < 5000; index += 1) value[`extra${index}`] = index;
    value.name = 'Ada';
    value.share = 1;
    expect(check(value)).toBe(false);
    // Were name and share cut, they would be listed as missing.
    expect((check.errors ?? []).some((error) => error.keyword === 'required')).toBe(false);
  });

  it('falls back on the first problem found when every problem lies past the cut', () => {
    const check = compiler.component('Unbounded');
    const value = Array.from({ length: 5000 }, (_, index) => (index === 4000 ? 'x' : index));
    expect(check(value)).toBe(false);
    expect(check.errors?.map((error) => error.instancePath)).toEqual(['/4000']);
  });

  it('reads a bounded number of items in all when limits multiply (ten thousand customers of a hundred companies)', () => {
    const inner = Array.from({ length: 10_000 }, () => counted(Array.from({ length: 100 }, () => ({}))));
    const outer = counted(inner.map((companies) => ({ companies: companies.array })));
    const check = compiler.component('Customers');
    expect(check(outer.array)).toBe(false);
    const reads = outer.reads() + inner.reduce((sum, companies) => sum + companies.reads(), 0);
    // Five listings' worth of items, each read by the cut and by the listing, and one company each of the customers
    // kept (its companies' minItems): a bound of the contract's, whatever the value holds.
    expect(reads).toBeLessThanOrEqual(4 * 5 * listedProblemsLimit + 10);
    expect(check.more).toBe(true);
    expect(check.errors?.length).toBeGreaterThan(0);
    // An array kept short of its minItems by the cut would be a problem the value does not have.
    expect((check.errors ?? []).some((error) => error.keyword === 'minItems')).toBe(false);
  });

  it('does not descend into a deeply nested value the schema does not describe', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    const check = compiler.component('Member');
    expect(check({ name: 'Ada', share: 1, nested: deep })).toBe(false);
    expect(check.errors?.map((error) => error.keyword)).toEqual(['additionalProperties']);
  });
});
