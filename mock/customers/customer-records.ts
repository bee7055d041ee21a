/**
 * Customers as the store keeps them, and their rules: a partner has one customer per email address, compared
 * without case (a second create with the same email returns the first customer), and lists its customers newest
 * first. Everything is per partner: another partner's customers are never read, listed or collided with.
 */
import type { Customer } from '../../generated/openapi.js';
import { pageOfIndex, type Page, type PageRequest } from '../pagination/page.ts';
import { nextPosition } from '../pagination/positions.ts';
import { key, within } from '../store/keys.ts';
import { table, type Tx } from '../store/store.ts';
import { announce } from '../changes/change-topics.ts';

export type CustomerRecord = Omit<Customer, 'created' | 'companies'>;

interface StoredCustomer {
  position: number;
  customer: CustomerRecord;
}

const customers = table<StoredCustomer>('customers');
/**
 * partner, lower-cased email → the customer: what makes an email once per partner. The customer itself rather than
 * its id (a customer never changes), so that a create of a known email reads one record, not two.
 */
const byEmail = table<StoredCustomer>('customer_emails');
/** partner, position → customer id: the partner's customers in the order created. */
const byPosition = table<string>('customers_by_position', { ordered: true });

/** The customer, made unless the partner has one with the same email (case-insensitive), which is returned instead. */
export function createCustomer(tx: Tx, partnerId: string, customer: CustomerRecord): { customer: CustomerRecord; created: boolean } {
  const emailKey = key(partnerId, customer.email.toLowerCase());
  const existing = tx.get(byEmail, emailKey);
  if (existing) return { customer: existing.customer, created: false };
  const stored = { position: nextPosition(tx, partnerId), customer };
  tx.put(customers, key(partnerId, customer.serviceCustomerId), stored);
  tx.put(byEmail, emailKey, stored);
  tx.put(byPosition, key(partnerId, stored.position), customer.serviceCustomerId);
  announce(tx, 'customers', partnerId);
  return { customer, created: true };
}

export function getCustomer(tx: Tx, partnerId: string, customerId: string): CustomerRecord | undefined {
  return tx.get(customers, key(partnerId, customerId))?.customer;
}

/** Newest first; with an email, the one customer that has it (compared without case), if any. */
export function listCustomers(tx: Tx, partnerId: string, filter: { email?: string }, page: PageRequest): Page<CustomerRecord> {
  if (filter.email !== undefined) {
    const stored = tx.get(byEmail, key(partnerId, filter.email.toLowerCase()));
    const shown = stored !== undefined && (page.after === undefined || stored.position < page.after) && page.limit > 0;
    return shown ? { items: [stored.customer], hasMore: false, last: stored.position } : { items: [], hasMore: false };
  }
  return pageOfIndex(tx, byPosition, [partnerId], page, {
    reverse: true,
    load: function (ids) {
      return (tx.getMany(customers, ids.map((id) => key(partnerId, id)))).map((stored) => stored?.customer);
    },
  });
}

/** Forgets up to `limit` of the partner's customers; true when none is left. */
export function forgetCustomers(tx: Tx, partnerId: string, limit: number): boolean {
  const entries = tx.scan(byPosition, within([partnerId], { limit }));
  const stored = tx.getMany(customers, entries.map((entry) => key(partnerId, entry.value)));
  entries.forEach((entry, index) => {
    tx.delete(byPosition, entry.key);
    tx.delete(customers, key(partnerId, entry.value));
    const customer = stored[index]?.customer;
    if (customer) tx.delete(byEmail, key(partnerId, customer.email.toLowerCase()));
  });
  return entries.length < limit;
}
