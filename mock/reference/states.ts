import { createRequire } from 'node:module';
import type { UsState } from '../../generated/openapi.js';
import { compareCodes } from './order.js';

/** The part of the `us` package (javascript-us, BSD-3-Clause) read here; it ships no type declarations. */
interface UsPackageState {
  readonly name: string;
  readonly abbr: string;
  readonly is_territory: boolean;
  readonly statehood_year: number | null;
}

const require = createRequire(import.meta.url);
const usPackage = require('us') as { readonly STATES: readonly UsPackageState[] };

function loadStates(): UsState[] {
  // `us.STATES` is the 50 states plus DC (territories are kept apart); DC is the one entry that never became a
  // state, which is what tells it apart from the states.
  const list = usPackage.STATES.filter((state) => !state.is_territory).map(
    (state): UsState => ({
      code: state.abbr,
      name: state.name,
      type: state.statehood_year === null ? 'DISTRICT' : 'STATE',
    }),
  );
  if (list.length !== 51) throw new Error(`the us package lists ${list.length} states and DC, not 51`);
  return list.sort((a, b) => compareCodes(a.code, b.code));
}

/** The 50 US states and the District of Columbia from the `us` package, ordered by USPS code. */
export const usStates: readonly UsState[] = Object.freeze(loadStates());
