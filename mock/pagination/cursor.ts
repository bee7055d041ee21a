/**
 * Pagination cursors: opaque, encrypted and authenticated (AES-256-GCM), and bound to the scope they were issued for
 * (the list, the partner, the filters: callers put all three in `filters`), so a forged cursor, or one reused
 * elsewhere, is refused (E_CURSOR_INVALID) instead of silently paging something else. Encrypted because some
 * positions count more than one partner's records (events, the request journal): a readable one would tell a
 * partner how busy the others are.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { validationFailed } from '../http/api-error.ts';

const ivLength = 12;
const tagLength = 16;

export interface CursorCodec {
  encode(position: number, filters: Record<string, unknown>): string;
  /** The position to continue after; throws the contract's 400 when the cursor is not one of ours. */
  decode(cursor: string, filters: Record<string, unknown>): number;
}

export function createCursorCodec(secret: Buffer = randomBytes(32)): CursorCodec {
  const key = createHash('sha256').update(secret).digest();
  return {
    encode(position, filters) {
      const iv = randomBytes(ivLength);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(JSON.stringify([position, filterKey(filters)])), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    },
    decode(cursor, filters) {
      const [position, scope] = open(key, cursor) ?? [];
      if (typeof position !== 'number' || scope !== filterKey(filters)) {
        throw validationFailed([{ in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID', message: 'Not a cursor issued for this list and these filters.' }]);
      }
      return position;
    },
  };
}

/** The cursor's content, or undefined when it is not one this key sealed. */
function open(key: Buffer, cursor: string): [unknown, unknown] | undefined {
  const bytes = Buffer.from(cursor, 'base64url');
  // Only the canonical encoding was issued: base64url decoding ignores a dangling character, so compare it back.
  if (bytes.toString('base64url') !== cursor || bytes.length <= ivLength + tagLength) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, ivLength));
    decipher.setAuthTag(bytes.subarray(ivLength, ivLength + tagLength));
    const plain = Buffer.concat([decipher.update(bytes.subarray(ivLength + tagLength)), decipher.final()]);
    const content = JSON.parse(plain.toString()) as unknown;
    return Array.isArray(content) ? (content as [unknown, unknown]) : undefined;
  } catch {
    return undefined;
  }
}

function filterKey(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(filters).sort().filter((key) => filters[key] !== undefined).map((key) => [key, filters[key]]));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}
