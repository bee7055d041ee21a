/**
 * Stored outcomes of create requests, by partner, operation and Idempotency-Key. Records expire after the
 * published retention (24 hours) and the store is capped, oldest first, so memory stays bounded.
 */
import type { SerializedResponse } from '../http/exchange.ts';

export type IdempotencyRecord =
  | { state: 'in-flight'; fingerprint: string; expiresAt: number }
  | { state: 'done'; fingerprint: string; expiresAt: number; response: SerializedResponse };

export interface IdempotencyStore {
  get(scope: string): IdempotencyRecord | undefined;
  begin(scope: string, fingerprint: string): void;
  complete(scope: string, response: SerializedResponse): void;
  abandon(scope: string): void;
  size(): number;
}

export function createIdempotencyStore(options: { ttlMs: number; maxRecords: number; now?: () => number }): IdempotencyStore {
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order, which is also expiry order since the TTL is fixed: the first entries are
  // the ones to drop.
  const records = new Map<string, IdempotencyRecord>();
  const evict = () => {
    const time = now();
    for (const [scope, record] of records) {
      if (records.size <= options.maxRecords && record.expiresAt > time) break;
      records.delete(scope);
    }
  };
  return {
    get(scope) {
      const record = records.get(scope);
      if (record && record.expiresAt <= now()) {
        records.delete(scope);
        return undefined;
      }
      return record;
    },
    begin(scope, fingerprint) {
      records.delete(scope);
      records.set(scope, { state: 'in-flight', fingerprint, expiresAt: now() + options.ttlMs });
      evict();
    },
    complete(scope, response) {
      const record = records.get(scope);
      if (record) records.set(scope, { state: 'done', fingerprint: record.fingerprint, expiresAt: record.expiresAt, response });
    },
    abandon(scope) {
      records.delete(scope);
    },
    size: () => records.size,
  };
}
