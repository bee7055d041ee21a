import type { EntityType, FilingFee, StateCode } from '../../generated/openapi.js';
import data from './filing-fees.json' with { type: 'json' };
import { usStates } from './states.js';

/** Fees are listed by state, then by entity type in the contract's order of `EntityType`. */
export const ENTITY_TYPES: readonly EntityType[] = Object.freeze(['LLC', 'CCorp'] as const);

export interface FilingFeeSource {
  readonly state: StateCode;
  readonly agency: string;
  readonly title: string;
  readonly url: string;
}

/** What `filing-fees.json` says about its own figures, for anyone who shows or audits them. */
export interface FilingFeeProvenance {
  readonly asOf: string;
  readonly note: string;
  readonly sources: readonly FilingFeeSource[];
  /** Per-state caveats: what a figure includes, or that it is a minimum. */
  readonly remarks: Readonly<Record<StateCode, string>>;
}

interface FilingFeeRow {
  readonly state: string;
  readonly LLC: number;
  readonly CCorp: number;
  readonly remark?: string;
}

// The data file is edited by hand, so a slip (a missing state, a fee in dollars with cents, a typo in a code)
// must stop the mock at start rather than serve a wrong figure.
function loadFilingFees(): FilingFee[] {
  if (data.currency !== 'USD') throw new Error(`filing-fees.json: currency must be USD, not ${data.currency}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(data.asOf)) throw new Error('filing-fees.json: asOf must be a YYYY-MM-DD date');
  const rows: readonly FilingFeeRow[] = data.fees;
  const byState = new Map<string, FilingFeeRow>();
  for (const row of rows) {
    if (byState.has(row.state)) throw new Error(`filing-fees.json: ${row.state} is listed twice`);
    byState.set(row.state, row);
  }
  const known = new Set(usStates.map((state) => state.code));
  const unknown = [...byState.keys()].filter((code) => !known.has(code));
  if (unknown.length > 0) throw new Error(`filing-fees.json: unknown states ${unknown.join(', ')}`);
  const sourced = new Set(data.sources.map((source) => source.state));

  const fees: FilingFee[] = [];
  for (const { code } of usStates) {
    const row = byState.get(code);
    if (!row) throw new Error(`filing-fees.json: no fees for ${code}`);
    if (!sourced.has(code)) throw new Error(`filing-fees.json: no source for ${code}`);
    for (const entityType of ENTITY_TYPES) {
      const amountCents = row[entityType];
      if (!Number.isSafeInteger(amountCents) || amountCents < 0) {
        throw new Error(`filing-fees.json: ${code} ${entityType} must be a non-negative integer number of cents`);
      }
      fees.push({ state: code, entityType, amountCents, currency: 'USD' });
    }
  }
  return fees;
}

/** The state filing fee of each entity type in each of the 51 jurisdictions, by state then entity type. */
export const filingFees: readonly FilingFee[] = Object.freeze(loadFilingFees());

export const filingFeeProvenance: FilingFeeProvenance = Object.freeze({
  asOf: data.asOf,
  note: data.note,
  sources: Object.freeze(data.sources.map((source) => Object.freeze({ ...source }))),
  remarks: Object.freeze(
    Object.fromEntries(
      (data.fees as readonly FilingFeeRow[]).flatMap((row) => (row.remark ? [[row.state, row.remark]] : [])),
    ),
  ),
});
