/**
 * Positions: the numbers that order a partner's records (customers, companies, documents) for paging. Each
 * partner counts its own, so a cursor, which carries one, tells a partner nothing of another's activity.
 */
import type { Tx } from '../store/store.ts';

export function nextPosition(tx: Tx, partnerId: string): number {
  return tx.allocate(`positions:${partnerId}`);
}
