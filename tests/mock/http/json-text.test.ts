/**
 * A repeated key is found wherever it is, and only where it is: the count of keys that decides whether to look for
 * one must agree with the token-by-token search on any text, whatever its strings hold (quotes, colons, escapes).
 * And an escaped key reads as what it says, whatever text was read before it (V8's JSON.parse does not always).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonText } from '../../../mock/http/json-text.ts';

const read = (text: string) => readJsonText(Buffer.from(text));

/** JSON text of an object, with the entries written as given (so a key can be written twice). */
const objectText = (entries: [string, string][]) => `{${entries.map(([key, value]) => `${JSON.stringify(key)} : ${value}`).join(',')}}`;

// Strings that look like keys and separators from inside: a reader that loses track of a string miscounts.
const tricky = fc.constantFrom('a', 'b', '":', '\\', '"', ':', ' : ', '{"x":1}', 'é', '\u2028', '\\":');

/** A value as its JSON reads back: JSON.stringify writes -0 as 0. */
function asWritten(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(asWritten);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, asWritten(child)]));
  return value;
}

describe('a repeated key', () => {
  it('is refused at any depth, and text without one is read as JSON.parse reads it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ unit: tricky, maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })), { maxLength: 6 }),
        fc.nat(),
        fc.boolean(),
        (entries, pick, repeat) => {
          const written: [string, string][] = entries.map(([key, value]) => [key, JSON.stringify(value)]);
          if (repeat && written.length > 0) written.push([written[pick % written.length]![0], '0']);
          const inner = objectText(written);
          const text = `{"outer":[1,${inner},{"k":"v"}],"s":"\\":"}`;
          const repeated = new Set(written.map(([key]) => key)).size < written.length;
          const result = read(text);
          if (repeated) {
            expect(result.kind).toBe('malformed');
            expect(result.kind === 'malformed' && result.problem).toMatch(/appears twice in one object, at \/outer\/1/);
          } else {
            // Built from the entries, not by JSON.parse, which may misread an escaped key (see below).
            expect(result).toEqual({ kind: 'json', value: { outer: [1, asWritten(Object.fromEntries(entries)), { k: 'v' }], s: '":' } });
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is refused in an object nested 100,000 levels deep', () => {
    const text = `${'['.repeat(100_000)}{"a":1,"a":2}${']'.repeat(100_000)}`;
    expect(read(text)).toEqual(expect.objectContaining({ kind: 'malformed', problem: expect.stringMatching(/"a" appears twice/) }));
  });
});

describe('an escaped key', () => {
  it('reads as what it says after another text had a \\ key (nodejs/node#63785)', () => {
    expect(read('{"h":[],"\\\\":0}')).toEqual({ kind: 'json', value: { h: [], '\\': 0 } });
    const after = read('{"h":1,"\\"":2}');
    expect(after.kind === 'json' && Object.keys(after.value as object)).toEqual(['h', '"']);
  });

  it('reads __proto__ as a property, as JSON.parse does, and numbers as it does', () => {
    const result = read('{"\\u005f_proto__":{"polluted":true},"n":[-0,1e400,0.1,12345678901234567890]}');
    expect(result.kind).toBe('json');
    const value = (result as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'n']);
    expect(value.n).toEqual(JSON.parse('[-0,1e400,0.1,12345678901234567890]'));
  });
});
