import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { contractFacts } from '../../generated/contract-facts.ts';

export type DownloadUrlVerdict = 'valid' | 'expired' | 'invalid';

export interface DownloadUrlSignerOptions {
  /** The HMAC key; a random secret per process is enough, since URLs live 15 minutes and die with the process. */
  readonly secret: Buffer;
  /** The path template of `downloadCompanyDocument`, as the contract gives it (`…/{companyId}/documents/{documentId}/content`). */
  readonly contentPath: string;
  /** How long a URL stays valid; by default what the contract promises (x-service-limits downloadUrlValiditySeconds). */
  readonly ttlSeconds?: number;
  /** Milliseconds since the epoch; injectable so that expiry can be tested without waiting. */
  readonly now?: () => number;
}

export interface DownloadUrlSigner {
  sign(target: { baseUrl: string; companyId: string; documentId: string }): { url: string; expiresAt: Date };
  /**
   * `expires` and `signature` exactly as they arrived in the URL, never parsed or coerced: a number cannot tell
   * `0900`, `900.0` or `9e2` from the `900` that was signed, so only the text is accepted.
   */
  verify(query: {
    companyId: string;
    documentId: string;
    expires: string;
    signature: string;
  }): DownloadUrlVerdict;
}

const MIN_SECRET_BYTES = 16;
const GENERATED_SECRET_BYTES = 32;
// The contract bounds `expires` to 0..99999999999 and `signature` to 1..128 base64url characters.
const EXPIRES_PATTERN = /^(0|[1-9][0-9]{0,10})$/;
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
// Ties each MAC to this use of the key, should the same secret ever sign anything else.
const PURPOSE = 'partner-formation/document-download/v1';

/** A fresh random key for `createDownloadUrlSigner`. */
export function createDownloadUrlSecret(): Buffer {
  return randomBytes(GENERATED_SECRET_BYTES);
}

/**
 * Signs and checks the capability URLs of `downloadCompanyDocument`: the MAC covers the company, the document and
 * the expiry, so changing any of them (or the signature) makes the URL invalid.
 */
export function createDownloadUrlSigner(options: DownloadUrlSignerOptions): DownloadUrlSigner {
  const { secret, contentPath, ttlSeconds = contractFacts.limits.downloadUrlValiditySeconds, now = () => Date.now() } = options;
  if (!Buffer.isBuffer(secret) || secret.length < MIN_SECRET_BYTES) {
    throw new RangeError(`the download URL secret must be a Buffer of at least ${MIN_SECRET_BYTES} bytes`);
  }
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError('ttlSeconds must be a positive integer');
  }
  if (!contentPath.includes('{companyId}') || !contentPath.includes('{documentId}')) {
    throw new RangeError(`the document content path must hold {companyId} and {documentId}; got ${contentPath}`);
  }
  const key = Buffer.from(secret);

  // JSON keeps the three parts apart unambiguously, whatever characters the identifiers hold.
  const mac = (companyId: string, documentId: string, expires: string): string =>
    createHmac('sha256', key).update(JSON.stringify([PURPOSE, companyId, documentId, expires])).digest('base64url');

  return {
    sign({ baseUrl, companyId, documentId }) {
      const expires = String(Math.floor(now() / 1000) + ttlSeconds);
      const path = contentPath.replace('{companyId}', encodeURIComponent(companyId)).replace('{documentId}', encodeURIComponent(documentId));
      const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
      url.searchParams.set('expires', expires);
      url.searchParams.set('signature', mac(companyId, documentId, expires));
      return { url: url.toString(), expiresAt: new Date(Number(expires) * 1000) };
    },

    verify({ companyId, documentId, expires, signature }) {
      if (typeof companyId !== 'string' || typeof documentId !== 'string') return 'invalid';
      if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) return 'invalid';
      // Only the canonical decimal text was ever signed, so "0900", "900.0" or "9e2" cannot stand in for 900; the
      // text is what the MAC covers, and it is only read as a number once the MAC has matched.
      if (typeof expires !== 'string' || !EXPIRES_PATTERN.test(expires)) return 'invalid';

      // Constant time, so the answer's timing does not reveal how much of a guessed signature was right. The
      // lengths may differ in the open: every signature is 43 characters, which is no secret.
      const expected = Buffer.from(mac(companyId, documentId, expires));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      // Only after the MAC matched: an altered expiry must read as tampering, not as an honest timeout.
      return now() > Number(expires) * 1000 ? 'expired' : 'valid';
    },
  };
}
