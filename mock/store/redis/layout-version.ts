/**
 * The version of the Redis backend's key layout, kept in the database beside the data (`pfm:layout`), so that a
 * mock of another version refuses the data with a clear message instead of misreading it: the layout changes with
 * the mock, and Redis has no schema to say so.
 */
import type { Redis } from 'ioredis';
import { StoreError } from '../store-error.ts';

export const layoutVersion = '2';
const versionKey = 'pfm:layout';

export async function checkLayoutVersion(client: Redis, description: string): Promise<void> {
  const found = await client.get(versionKey);
  if (found === layoutVersion) return;
  // No version: a new database takes this one; one holding data of an earlier layout does not.
  const [, keys] = found === null ? await client.scan('0', 'MATCH', 'pfm:d:*', 'COUNT', 1000) : ['0', ['']];
  if (found !== null || keys.length > 0) {
    throw new StoreError(
      `${description} holds mock data of ${found === null ? 'an earlier' : `another (${found})`} layout, and this mock writes layout ${layoutVersion}: empty that database (redis-cli -n DB FLUSHDB) or pass another one (--store redis://HOST:PORT/DB)`,
    );
  }
  await client.set(versionKey, layoutVersion);
}
