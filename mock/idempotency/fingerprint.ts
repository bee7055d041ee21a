/** The fingerprint of a create request: the canonical JSON of its body, so key order and white space do not matter. */
import { createHash } from 'node:crypto';

/** Deeper than any body the contract accepts; past it, the bytes are fingerprinted instead (see below). */
const maxCanonicalDepth = 64;

export function fingerprintOf(body: unknown, rawBody: Buffer | undefined): string {
  const hash = createHash('sha256');
  const canonical = body === undefined ? undefined : canonicalJson(body);
  // A body that is not JSON has no canonical form, and one nested deeper than any valid body is not worth the
  // stack to build it: their bytes are their fingerprint.
  if (canonical === undefined) hash.update('raw:').update(rawBody ?? Buffer.alloc(0));
  else hash.update('json:').update(canonical);
  return hash.digest('base64url');
}

/** Key order and white space removed; undefined when the value nests deeper than the limit. */
export function canonicalJson(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (depth >= maxCanonicalDepth) return undefined;
  // Built by concatenation, not by joining an array per level: a body of 300,000 small objects made as many arrays.
  if (Array.isArray(value)) {
    let out = '[';
    for (let index = 0; index < value.length; index += 1) {
      const part = canonicalJson(value[index], depth + 1);
      if (part === undefined) return undefined;
      out += index === 0 ? part : `,${part}`;
    }
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const part = canonicalJson((value as Record<string, unknown>)[key], depth + 1);
    if (part === undefined) return undefined;
    out += `${index === 0 ? '' : ','}${JSON.stringify(key)}:${part}`;
  }
  return `${out}}`;
}
