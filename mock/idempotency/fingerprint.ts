/** The fingerprint of a create request: the canonical JSON of its body, so key order and white space do not matter. */
import { createHash } from 'node:crypto';

export function fingerprintOf(body: unknown, rawBody: Buffer | undefined): string {
  const hash = createHash('sha256');
  // A body that is not JSON has no canonical form: its bytes are its fingerprint.
  if (body === undefined) hash.update('raw:').update(rawBody ?? Buffer.alloc(0));
  else hash.update('json:').update(canonicalJson(body));
  return hash.digest('base64url');
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}
