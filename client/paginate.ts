/**
 * Walks a list operation page by page (see *Pagination* in the contract): the same filters on every request,
 * `nextCursor` passed as `cursor` while `hasMore` is `true`. It takes the list method and that method's own
 * arguments, so their types (required path parameters, filters) are the method's. Pages are fetched one at a
 * time as the items are consumed: leaving the loop early stops the requests.
 *
 *   for await (const customer of paginate(client.listCustomers, { limit: 100 })) { … }
 *   for await (const document of paginate(client.listCompanyDocuments, { companyId })) { … }
 */
import type { PartnerResult } from './response-meta.ts';

interface Page {
  data: unknown[];
  hasMore: boolean;
  nextCursor: string | null;
}

type ListMethod = (params: never, options?: never) => Promise<PartnerResult<Page>>;
type ItemOf<List extends ListMethod> = Awaited<ReturnType<List>>['payload']['data'][number];

export async function* paginate<List extends ListMethod>(
  list: List,
  ...[params, options]: Parameters<List>
): AsyncGenerator<ItemOf<List>, void, undefined> {
  const fetchPage = list as unknown as (params: object, options: unknown) => Promise<PartnerResult<Page>>;
  const filters: { cursor?: string } = { ...(params as object | undefined) };
  let cursor = filters.cursor;
  for (;;) {
    const { payload: page } = await fetchPage({ ...filters, cursor }, options);
    yield* page.data as ItemOf<List>[];
    if (!page.hasMore) return;
    if (!page.nextCursor) throw new Error('The API reported more items (`hasMore: true`) but gave no `nextCursor`.');
    cursor = page.nextCursor;
  }
}
