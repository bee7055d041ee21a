/** The list payload every list operation shares: `data`, `hasMore`, `nextCursor`. */
import type { CursorCodec } from '../http/cursor.ts';

export const defaultPageSize = 20;

export interface ListQuery {
  limit: number;
  after?: number;
}

/** Reads `limit` and `cursor` (already validated against the contract) for a list with these filters. */
export function readListQuery(query: { limit?: number; cursor?: string }, cursors: CursorCodec, filters: Record<string, unknown>): ListQuery {
  const { limit = defaultPageSize, cursor } = query;
  return { limit, after: cursor === undefined ? undefined : cursors.decode(cursor, filters) };
}

export function listPayload<T>(
  page: { items: T[]; hasMore: boolean; last?: number },
  cursors: CursorCodec,
  filters: Record<string, unknown>,
): { data: T[]; hasMore: boolean; nextCursor: string | null } {
  return {
    data: page.items,
    hasMore: page.hasMore,
    nextCursor: page.hasMore && page.last !== undefined ? cursors.encode(page.last, filters) : null,
  };
}

/** Pages a fixed, ordered list (reference data) by index. */
export function pageOfArray<T>(items: readonly T[], { limit, after }: ListQuery): { items: T[]; hasMore: boolean; last?: number } {
  const start = after === undefined ? 0 : after + 1;
  const slice = items.slice(start, start + limit);
  return { items: slice, hasMore: start + limit < items.length, last: slice.length > 0 ? start + slice.length - 1 : undefined };
}
