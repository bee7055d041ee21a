/**
 * A repeated key is found wherever it is, and only where it is: the count of keys that decides whether to look for
 * one must agree with the token-by-token search on any text, whatever its strings hold (quotes, colons, escapes).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonText } from '../../../mock/http/json-text.ts';

const read = (text: string) => readJsonText(Buffer.from(text));

/** JSON text of an object, with the entries written as given (so a key can be written twice). */
const objectText = (entries: [string, string][]) => `{${entries.map(([key, value]) => `${JSON.stringify(key)} : ${value}`).join(',')}}`;

// Strings that look like keys and separators from inside: a reader that loses track of a string miscounts.
const tricky = fc.constantFrom('a', 'b', '":', '\\', '"', ':', ' : ', '{"x":1}', 'é', '\u2028', '\\":');

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
            expect(result).toEqual({ kind: 'json', value: JSON.parse(text) });
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
