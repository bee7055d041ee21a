/** Identifiers as the contracts shape them: a prefix and 24 letters and digits (`cus_…`, `com_…`, `doc_…`, `evt_…`, `we_…`). */
import { randomInt } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type IdPrefix = 'cus' | 'com' | 'doc' | 'evt' | 'we' | 'flt';

export function newId(prefix: IdPrefix): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 24; i += 1) id += alphabet[randomInt(alphabet.length)];
  return id;
}
