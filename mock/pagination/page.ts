/**
 * Pages of the lists the mock serves (customers, companies, documents, reference data, events, the journal): what a
 * page request and a page are, the list payload every list operation shares (`data`, `hasMore`, `nextCursor`), and
 * how a page is read from an index of positions in the store. A position is a number that only grows within its
 * scope (a partner's records, say); a cursor carries the last position of a page, sealed (cursor.ts).
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import type { KeyPart } from '../store/keys.ts';
import { numberPart, within } from '../store/keys.ts';
import type { Table, Tx } from '../store/store.ts';
import type { CursorCodec } from './cursor.ts';

/** The page size when a list request names none (the contract's `limit` default). */
const defaultPageSize = contractFacts.pageSize.default;

export interface PageRequest {
  limit: number;
  /** Position of the last item of the previous page; absent for the first page. */
  after?: number;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** Position of the last item returned, to continue from. */
  last?: number;
}

/** Reads `limit` and `cursor` (already validated against the contract) for a list with these filters. */
export function readListQuery(query: { limit?: number; cursor?: string }, cursors: CursorCodec, filters: Record<string, unknown>): PageRequest {
  const { limit = defaultPageSize, cursor } = query;
  return { limit, ...(cursor === undefined ? {} : { after: cursors.decode(cursor, filters) }) };
}

export function listPayload<T>(page: Page<T>, cursors: CursorCodec, filters: Record<string, unknown>): { data: T[]; hasMore: boolean; nextCursor: string | null } {
  return {
    data: page.items,
    hasMore: page.hasMore,
    nextCursor: page.hasMore && page.last !== undefined ? cursors.encode(page.last, filters) : null,
  };
}

/** Pages a fixed, ordered list (reference data) by index. */
export function pageOfArray<T>(items: readonly T[], { limit, after }: PageRequest): Page<T> {
  const start = after === undefined ? 0 : after + 1;
  const slice = items.slice(start, start + limit);
  return { items: slice, hasMore: start + limit < items.length, ...(slice.length > 0 ? { last: start + slice.length - 1 } : {}) };
}

/** Index entries read per round while a filter passes over entries it does not keep. */
const slice = 100;

/**
 * A page from an index whose keys are `prefix` then a position, and whose values name the item (an id) that `load`
 * reads: newest first (`reverse`) or oldest first, after the cursor's position, keeping the items `keep` keeps. A
 * filter that keeps few items walks more of the index, but only within the prefix (one partner's records).
 */
export function pageOfIndex<T>(
  tx: Tx,
  index: Table<string>,
  prefix: readonly KeyPart[],
  page: PageRequest,
  options: { reverse: boolean; load: (ids: readonly string[]) => (T | undefined)[]; keep?: (item: T) => boolean },
): Page<T> {
  const found: { position: number; item: T }[] = [];
  let from = page.after;
  for (;;) {
    const bound = from === undefined ? {} : options.reverse ? { before: [from] } : { after: [from] };
    const limit = options.keep ? slice : page.limit + 1 - found.length;
    const entries = tx.scan(index, within(prefix, { ...bound, reverse: options.reverse, limit }), { snapshot: true });
    const items = options.load(entries.map((entry) => entry.value));
    entries.forEach((entry, i) => {
      const item = items[i];
      if (item !== undefined && (options.keep?.(item) ?? true)) found.push({ position: numberPart(entry.key, prefix.length), item });
    });
    if (found.length > page.limit || entries.length < limit) break;
    from = numberPart((entries.at(-1) as { key: string }).key, prefix.length);
  }
  const shown = found.slice(0, page.limit);
  return { items: shown.map((entry) => entry.item), hasMore: found.length > page.limit, ...(shown.length > 0 ? { last: (shown.at(-1) as { position: number }).position } : {}) };
}
