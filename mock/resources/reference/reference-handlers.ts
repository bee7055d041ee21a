/** listCountries, listStates, listNaicsCodes, listFilingFees: the reference datasets, paged in code order. */
import type { EntityType } from '../../../generated/openapi.js';
import type { CursorCodec } from '../../http/cursor.ts';
import { countries, findFilingFees, findNaicsIndustries, naicsIndustries, usStates } from '../../reference/index.ts';
import type { Handlers } from '../handler.ts';
import { listPayload, pageOfArray, readListQuery } from '../paging.ts';

export function referenceHandlers({ cursors }: { cursors: CursorCodec }): Handlers {
  const list = <T>(items: readonly T[], query: Record<string, unknown>, filters: Record<string, unknown>) => ({
    status: 200,
    payload: listPayload(pageOfArray(items, readListQuery(query, cursors, filters)), cursors, filters),
  });
  return {
    listCountries: (context) => list(countries, context.query, { list: 'countries' }),
    listStates: (context) => list(usStates, context.query, { list: 'states' }),
    listNaicsCodes: (context) => {
      const q = context.query.q as string | undefined;
      return list(q === undefined ? naicsIndustries : findNaicsIndustries(q), context.query, { list: 'naics', q });
    },
    listFilingFees: (context) => {
      const filter = { state: context.query.state as string | undefined, entityType: context.query.entityType as EntityType | undefined };
      return list(findFilingFees(filter), context.query, { list: 'fees', ...filter });
    },
  };
}
