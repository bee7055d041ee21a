import { createRequire } from 'node:module';
// The package's index, not its Node entry: that registers every one of its 80 languages at start (20 to 30 ms of a
// start of 300 ms), where only English is shown.
import countriesPackage from 'i18n-iso-countries/index.js';
import type { Country } from '../../generated/openapi.js';
import { compareCodes } from './order.js';

// The package also carries Kosovo's user-assigned code (XK/XKK), which is not an ISO 3166-1 assignment; the
// contract promises ISO 3166-1 only.
const NOT_ISO_3166_1 = new Set(['XK']);

// Required rather than imported: the start-up bundle keeps packages external, and an external JSON import would
// lose its `with { type: 'json' }` attribute there.
countriesPackage.registerLocale(createRequire(import.meta.url)('i18n-iso-countries/langs/en.json'));

function loadCountries(): Country[] {
  const alpha2ByAlpha3 = countriesPackage.getAlpha3Codes();
  const names = countriesPackage.getNames('en', { select: 'official' });
  const list: Country[] = [];
  for (const [code, alpha2] of Object.entries(alpha2ByAlpha3)) {
    if (NOT_ISO_3166_1.has(alpha2)) continue;
    const name = names[alpha2]?.trim();
    if (!name) throw new Error(`i18n-iso-countries has no English name for ${alpha2}`);
    list.push({ code, alpha2, name });
  }
  return list.sort((a, b) => compareCodes(a.code, b.code));
}

/** ISO 3166-1 countries from `i18n-iso-countries`, English short names, ordered by alpha-3 code. */
export const countries: readonly Country[] = Object.freeze(loadCountries());
