/**
 * The ids of journal entries as the admin API shows them (`jr_` and 22 characters): the entry's position and the
 * scope it was shown in (a partner, or every partner), sealed in one AES block. An id is the same every time the
 * entry is shown, so that a console can match an entry streamed with one listed; it says nothing of the position
 * (positions count every partner's requests), and one shown to a partner opens nothing for another.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

export interface EntryIds {
  idOf(position: number, partnerId: string | undefined): string;
  /** The position an id stands for in this scope; undefined for an id not issued in it. */
  positionOf(id: string, partnerId: string | undefined): number | undefined;
}

const prefix = 'jr_';
export const entryIdPattern = /^jr_[A-Za-z0-9_-]{22}$/;

export function createEntryIds(secret: Buffer): EntryIds {
  const key = createHash('sha256').update('journal entry ids').update(secret).digest();
  const scopeOf = (partnerId: string | undefined) => createHash('sha256').update(partnerId ?? '').digest().subarray(0, 8);
  return {
    idOf(position, partnerId) {
      const block = Buffer.alloc(16);
      block.writeBigUInt64BE(BigInt(position), 0);
      scopeOf(partnerId).copy(block, 8);
      const cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
      return prefix + Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
    },
    positionOf(id, partnerId) {
      if (!entryIdPattern.test(id)) return undefined;
      const sealed = Buffer.from(id.slice(prefix.length), 'base64url');
      if (sealed.length !== 16 || sealed.toString('base64url') !== id.slice(prefix.length)) return undefined;
      const decipher = createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false);
      const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
      if (!block.subarray(8).equals(scopeOf(partnerId))) return undefined;
      const position = block.readBigUInt64BE(0);
      return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
    },
  };
}
