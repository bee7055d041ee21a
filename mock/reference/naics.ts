/**
 * The NAICS codes the contract promises: the 2022 edition, from the U.S. Census Bureau's 2022 NAICS structure,
 * vendored in naics-2022/ with its provenance (SOURCE.md: where it was taken from, how it was checked and
 * cleaned, and the file's SHA-256, which a test holds it to). Only the six-digit national industries are
 * formation codes; sectors (including ranges like 31-33), subsectors and industry groups are not.
 */
import type { NaicsIndustry } from '../../generated/openapi.js';
import structure from './naics-2022/naics-2022.json' with { type: 'json' };
import { compareCodes } from './order.js';

export interface NaicsSource {
  readonly edition: number;
  /** Who publishes the list, and which file of theirs it is. */
  readonly source: string;
  /** SHA-256 of the vendored file (mock/reference/naics-2022/naics-2022.json). */
  readonly sha256: string;
}

export const naicsSource: NaicsSource = Object.freeze({
  edition: 2022,
  source: 'U.S. Census Bureau, 2022 NAICS structure (2022_NAICS_Structure.xlsx)',
  sha256: 'b80bff76f81f51d0275ab08a6ce7dd324055d4dbb6ff8bfd753e76e13464aef9',
});

/** The edition the contract names (its NAICS schemas' descriptions); a test holds the two together. */
export const contractNaicsEdition = 2022;

function loadNaicsIndustries(): NaicsIndustry[] {
  return (structure as { code: string; title: string }[])
    .filter((entry) => /^[0-9]{6}$/.test(entry.code))
    .map((entry) => ({ code: entry.code, title: entry.title }))
    .sort((a, b) => compareCodes(a.code, b.code));
}

/** The six-digit national industries of NAICS 2022, ordered by code. */
export const naicsIndustries: readonly NaicsIndustry[] = Object.freeze(loadNaicsIndustries());
