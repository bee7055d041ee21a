/**
 * `node:module` in the browser build: `createRequire` for the three packages the mock requires rather than imports
 * (reference/countries.ts, reference/states.ts, contract-model/schema-compiler.ts), imported here and bundled.
 */
import ajvFormats from 'ajv-formats';
import englishCountryNames from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
// @ts-expect-error -- the us package ships no type declarations: reference/states.ts types the part it reads.
import us from 'us';
import { notInBrowser } from './not-in-browser.ts';

const required: Record<string, unknown> = {
  'ajv-formats': ajvFormats,
  'i18n-iso-countries/langs/en.json': englishCountryNames,
  us,
};

export function createRequire() {
  const require = (id: string): unknown => {
    if (!(id in required)) notInBrowser(`require(${JSON.stringify(id)})`);
    return required[id];
  };
  return Object.assign(require, { resolve: (id: string): never => notInBrowser(`require.resolve(${JSON.stringify(id)})`) });
}
