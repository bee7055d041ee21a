/** listCountries, listStates, listNaicsCodes, listFilingFees: the reference datasets, paged in code order. */
import type { CursorCodec } from '../pagination/cursor.ts';
import { listPayload, pageOfArray, readListQuery } from '../pagination/page.ts';
import type { Handlers } from '../pipeline/handler.ts';
import { countries, findFilingFees, findNaicsIndustries, naicsIndustries, usStates } from './index.ts';

export function referenceHandlers({ cursors }: { cursors: CursorCodec }): Pick<Handlers, 'listCountries' | 'listStates' | 'listNaicsCodes' | 'listFilingFees'> {
  const list = <T>(items: readonly T[], query: { limit?: number; cursor?: string }, filters: Record<string, unknown>) => ({
    status: 200 as const,
    payload: listPayload(pageOfArray(items, readListQuery(query, cursors, filters)), cursors, filters),
  });
  return {
    listCountries: (context) => list(countries, context.query, { list: 'countries' }),
    listStates: (context) => list(usStates, context.query, { list: 'states' }),
    listNaicsCodes: (context) => {
      const { q } = context.query;
      return list(q === undefined ? naicsIndustries : findNaicsIndustries(q), context.query, { list: 'naics', q });
    },
    listFilingFees: (context) => {
      const filter = { state: context.query.state, entityType: context.query.entityType };
      return list(findFilingFees(filter), context.query, { list: 'fees', ...filter });
    },
  };
}
