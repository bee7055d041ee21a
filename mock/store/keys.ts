/**
 * Keys of the store: a tuple of strings and whole numbers, encoded as one string whose order is the tuple's order,
 * so that every backend can keep a table sorted by key and read a range of it (a partner's customers newest
 * first, the steps due by a time) with nothing but string comparisons.
 *
 * - Parts are joined by NUL. A NUL or \u0001 inside a string part is escaped (`\u0001\u0001`, `\u0001\u0002`), so a
 *   part never contains a raw NUL and the keys of one prefix are exactly those from `prefix NUL` to `prefix \u0001`.
 * - A number is written as 16 decimal digits (every safe integer fits), so 9 sorts before 10.
 *
 * Strings compare as UTF-16 code units in JavaScript and as bytes in SQLite and Redis: the two orders agree on
 * everything the rules range over (ids, numbers, ASCII names); other text is only ever looked up exactly.
 */

export type KeyPart = string | number;

const separator = '\u0000';
const numberWidth = 16;

function encodePart(part: KeyPart): string {
  if (typeof part === 'number') {
    if (!Number.isSafeInteger(part) || part < 0) throw new RangeError(`a key number must be a safe integer >= 0, got ${part}`);
    return String(part).padStart(numberWidth, '0');
  }
  // The common case (ids, names) has neither character: no copy is made.
  if (part.indexOf('\u0000') < 0 && part.indexOf('\u0001') < 0) return part;
  return part.replaceAll('\u0001', '\u0001\u0002').replaceAll('\u0000', '\u0001\u0001');
}

/** The key of a tuple. */
export function key(...parts: readonly KeyPart[]): string {
  if (parts.length === 1) return encodePart(parts[0] as KeyPart);
  let encoded = encodePart(parts[0] as KeyPart);
  for (let i = 1; i < parts.length; i += 1) encoded += separator + encodePart(parts[i] as KeyPart);
  return encoded;
}

/** The parts of a key, strings as strings; a number part comes back as its digits (see `numberPart`). */
export function parts(encoded: string): string[] {
  return encoded.split(separator).map(decodePart);
}

function decodePart(part: string): string {
  if (part.indexOf('\u0001') < 0) return part;
  let decoded = '';
  // An escape is always a pair starting with \u0001: read pair by pair, never across two.
  for (let i = 0; i < part.length; i += 1) {
    if (part[i] !== '\u0001') decoded += part[i];
    else decoded += part[(i += 1)] === '\u0001' ? '\u0000' : '\u0001';
  }
  return decoded;
}

/** A number part read back. */
export function numberPart(encoded: string, index: number): number {
  return Number(parts(encoded)[index]);
}

/** A range of keys, as a backend reads it: bounds are encoded keys; at most `limit` entries, in key order or reversed. */
export interface KeyRange {
  /** Lowest key in the range (inclusive). */
  low: string;
  /** Highest key (exclusive). */
  high: string;
  reverse: boolean;
  limit: number;
}

/**
 * The keys that start with `prefix` (a tuple), optionally only those after `after` or before `before` (tuples
 * continuing the prefix, compared as keys), in order or reversed.
 */
export function within(prefix: readonly KeyPart[], options: { after?: readonly KeyPart[]; before?: readonly KeyPart[]; reverse?: boolean; limit: number }): KeyRange {
  const stem = prefix.length === 0 ? '' : key(...prefix);
  const base = prefix.length === 0 ? '' : stem + separator;
  const end = prefix.length === 0 ? '\u{10FFFF}' : stem + '\u0001';
  // Just after a key: the key itself, then NUL (the smallest continuation), then \u0001 past all its continuations.
  const low = options.after ? key(...prefix, ...options.after) + '\u0001' : base;
  const high = options.before ? key(...prefix, ...options.before) : end;
  return { low, high, reverse: options.reverse ?? false, limit: options.limit };
}

/** Every key from `low` up to `high` (exclusive), encoded tuples both. */
export function between(low: readonly KeyPart[], high: readonly KeyPart[], options: { reverse?: boolean; limit: number }): KeyRange {
  return { low: key(...low), high: key(...high), reverse: options.reverse ?? false, limit: options.limit };
}
