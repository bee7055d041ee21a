/** A company's webhook events, as the portal lists the partner's. */
import { adminClient, problemOf, type AdminSchemas } from '../../api.ts';

type MockEvent = AdminSchemas['MockEvent'];

/** Pages of the partner's events read at most, newest first, looking for a company's. */
const maxEventPages = 10;

/**
 * The company's events, oldest first: the partner's events, newest first a page at a time, filtered, then turned
 * around (their times are to the second, so the journal's order is the one to keep).
 */
export async function eventsOf(companyId: string): Promise<MockEvent[]> {
  const found: MockEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxEventPages; page += 1) {
    const result = await adminClient().GET('/_mock/events', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
    if (!result.data) throw new Error(problemOf(result));
    found.push(...result.data.payload.data.filter((event) => (event.payload.data as { serviceCompanyId?: string } | undefined)?.serviceCompanyId === companyId));
    if (!result.data.payload.nextCursor) break;
    cursor = result.data.payload.nextCursor;
  }
  return found.reverse();
}
