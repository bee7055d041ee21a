/**
 * Pagination cursors: opaque, signed, and bound to the scope they were issued for (the list, the partner, the
 * filters: callers put all three in `filters`), so a forged cursor, or one reused elsewhere, is refused
 * (E_CURSOR_INVALID) instead of silently paging something else. The scope is carried as a digest only.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { validationFailed } from './api-error.ts';

const macLength = 8;

export interface CursorCodec {
  encode(position: number, filters: Record<string, unknown>): string;
  /** The position to continue after; throws the contract's 400 when the cursor is not one of ours. */
  decode(cursor: string, filters: Record<string, unknown>): number;
}

export function createCursorCodec(secret: Buffer = randomBytes(32)): CursorCodec {
  const mac = (payload: Buffer) => createHmac('sha256', secret).update(payload).digest().subarray(0, macLength);
  return {
    encode(position, filters) {
      const payload = Buffer.from(JSON.stringify([position, filterKey(filters)]));
      return Buffer.concat([mac(payload), payload]).toString('base64url');
    },
    decode(cursor, filters) {
      const bytes = Buffer.from(cursor, 'base64url');
      const payload = bytes.subarray(macLength);
      // Only the canonical encoding was issued: base64url decoding ignores a dangling character, so compare it back.
      const valid = bytes.toString('base64url') === cursor && bytes.length > macLength && timingSafeEqual(bytes.subarray(0, macLength), mac(payload));
      const [position, key] = valid ? (JSON.parse(payload.toString()) as [unknown, unknown]) : [];
      if (typeof position !== 'number' || key !== filterKey(filters)) {
        throw validationFailed([{ in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID', message: 'Not a cursor issued for this list and these filters.' }]);
      }
      return position;
    },
  };
}

function filterKey(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(filters).sort().filter((key) => filters[key] !== undefined).map((key) => [key, filters[key]]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}
