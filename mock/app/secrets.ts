/**
 * Named secrets made once and then shared by every process on the store and kept across restarts: the keys that
 * sign cursors and download URLs, a generated webhook secret. They outlive a reset of the store.
 */
import { table, type Store, type Tx } from '../store/store.ts';

export const secrets = table<string>('secrets');

function secretBody(tx: Tx, name: string, create: () => string): string {
  const existing = tx.get(secrets, name);
  if (existing !== undefined) return existing;
  // Another process may make it first: the commit then finds that it read an absent secret, and this runs again.
  const made = create();
  tx.put(secrets, name, made);
  return made;
}

export async function secret(store: Store, name: string, create: () => string): Promise<string> {
  return (await store.read((tx) => tx.get(secrets, name))) ?? store.write((tx) => secretBody(tx, name, create));
}
