import { describe, expect, it } from 'vitest';
import {
  createDownloadUrlSecret,
  createDownloadUrlSigner,
  type DownloadUrlSigner,
} from '../../../mock/documents/signed-url.js';
import { contractFacts } from '../../../generated/contract-facts.ts';

const companyId = 'com_5kHx9QaZ2mTw6RcN8vLp3JyD';
const documentId = 'doc_3fGh7JkL2zXc9VbN4mQw8ErT';
const baseUrl = 'https://sandbox.api.partner-formation.example';
const start = Date.parse('2026-11-22T10:00:00Z');
/** What the contract promises (x-service-limits downloadUrlValiditySeconds), in milliseconds. */
const validityMs = contractFacts.limits.downloadUrlValiditySeconds * 1000;
const contentPath = '/v1/partner/companies/{companyId}/documents/{documentId}/content';

function setup(ttlSeconds?: number) {
  let clock = start;
  const signer = createDownloadUrlSigner({
    secret: createDownloadUrlSecret(),
    contentPath,
    now: () => clock,
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  });
  const { url, expiresAt } = signer.sign({ baseUrl, companyId, documentId });
  const parsed = new URL(url);
  const query = {
    companyId,
    documentId,
    expires: parsed.searchParams.get('expires') ?? '',
    signature: parsed.searchParams.get('signature') ?? '',
  };
  return { signer, url: parsed, expiresAt, query, advance: (ms: number) => (clock += ms) };
}

function flip(text: string, index: number): string {
  const char = text[index];
  return `${text.slice(0, index)}${char === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
}

describe('sign', () => {
  it('builds the downloadCompanyDocument URL with expires and a base64url signature', () => {
    const { url, query, expiresAt } = setup();
    expect(url.origin).toBe(baseUrl);
    expect(url.pathname).toBe(`/v1/partner/companies/${companyId}/documents/${documentId}/content`);
    expect([...url.searchParams.keys()].sort()).toEqual(['expires', 'signature']);
    expect(query.expires).toMatch(/^[0-9]+$/);
    expect(query.signature).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
    expect(expiresAt.getTime()).toBe(Number(query.expires) * 1000);
  });

  it('expires as long after issue as the contract promises by default, or after the given TTL', () => {
    expect(setup().expiresAt.getTime()).toBe(start + validityMs);
    expect(setup(60).expiresAt.getTime()).toBe(start + 60_000);
  });

  it('keeps a path prefix of the base URL and ignores a trailing slash', () => {
    const signer = createDownloadUrlSigner({ secret: createDownloadUrlSecret(), contentPath });
    const { url } = signer.sign({ baseUrl: 'http://127.0.0.1:4010/mock/', companyId, documentId });
    expect(new URL(url).pathname).toBe(`/mock/v1/partner/companies/${companyId}/documents/${documentId}/content`);
  });

  it('refuses a short secret or a bad TTL', () => {
    expect(() => createDownloadUrlSigner({ secret: Buffer.alloc(8), contentPath })).toThrow(RangeError);
    expect(() => createDownloadUrlSigner({ secret: createDownloadUrlSecret(), contentPath, ttlSeconds: 0 })).toThrow(RangeError);
  });
});

describe('verify', () => {
  it('accepts the URL it signed, with expires as the text it issued', () => {
    const { signer, query } = setup();
    expect(signer.verify(query)).toBe('valid');
  });

  it('answers invalid for the signed expiry written in any other form', () => {
    const { signer, query } = setup();
    const e = query.expires;
    const exponent = `${e[0]}.${e.slice(1)}`.replace(/0+$/, '') + `e${e.length - 1}`;
    expect(Number(exponent)).toBe(Number(e));
    for (const expires of [`0${e}`, `00${e}`, `${e}.0`, `${e}.`, exponent, `+${e}`, ` ${e}`, `${e} `, `0x${Number(e).toString(16)}`]) {
      expect(signer.verify({ ...query, expires }), expires).toBe('invalid');
    }
  });

  it('answers invalid for expires given as a number, even the signed one: a number cannot tell 0900 from 900', () => {
    const { signer, query } = setup();
    const loose = signer.verify as (query: Record<string, unknown>) => string;
    expect(loose({ ...query, expires: Number(query.expires) })).toBe('invalid');
  });

  it('still accepts it at the last moment of its validity', () => {
    const { signer, query, advance } = setup();
    advance(validityMs);
    expect(signer.verify(query)).toBe('valid');
  });

  it('answers expired once the expiry has passed', () => {
    const { signer, query, advance } = setup();
    advance(validityMs + 1);
    expect(signer.verify(query)).toBe('expired');
  });

  it('answers invalid for an altered expiry, even one already past', () => {
    const { signer, query, advance } = setup();
    expect(signer.verify({ ...query, expires: String(Number(query.expires) + 3600) })).toBe('invalid');
    advance(3_600_000);
    expect(signer.verify({ ...query, expires: String(Number(query.expires) - 1) })).toBe('invalid');
    expect(signer.verify({ ...query, expires: `0${query.expires}` })).toBe('invalid');
  });

  it('answers invalid for an altered signature', () => {
    const { signer, query } = setup();
    expect(signer.verify({ ...query, signature: flip(query.signature, 0) })).toBe('invalid');
    expect(signer.verify({ ...query, signature: flip(query.signature, query.signature.length - 1) })).toBe('invalid');
    expect(signer.verify({ ...query, signature: query.signature.slice(0, -1) })).toBe('invalid');
    expect(signer.verify({ ...query, signature: `${query.signature}A` })).toBe('invalid');
  });

  it('answers invalid for another document or company', () => {
    const { signer, query } = setup();
    expect(signer.verify({ ...query, documentId: 'doc_3fGh7JkL2zXc9VbN4mQw8ErU' })).toBe('invalid');
    expect(signer.verify({ ...query, companyId: 'com_5kHx9QaZ2mTw6RcN8vLp3JyE' })).toBe('invalid');
  });

  it('answers invalid for a URL signed with another secret', () => {
    const { query } = setup();
    const other = createDownloadUrlSigner({ secret: createDownloadUrlSecret(), contentPath, now: () => start });
    expect(other.verify(query)).toBe('invalid');
  });

  it.each([
    ['empty', ''],
    ['not base64url', '!!!not-a-signature!!!'],
    ['standard base64', 'kM3r8Qx0Vb7wYt2LpN5sJd9HfA1cZe4GgU6iOo0T+Rk='],
    ['too long', 'A'.repeat(129)],
    ['non-ASCII', 'é'.repeat(43)],
  ])('answers invalid, without throwing, for a garbage signature (%s)', (_label, signature) => {
    const { signer, query } = setup();
    expect(signer.verify({ ...query, signature })).toBe('invalid');
  });

  it.each([
    ['empty', ''],
    ['negative', '-1'],
    ['fractional', '1795344900.5'],
    ['exponent', '1.7e9'],
    ['too large', '999999999999'],
  ] as const)('answers invalid, without throwing, for a malformed expiry (%s)', (_label, expires) => {
    const { signer, query } = setup();
    expect(signer.verify({ ...query, expires })).toBe('invalid');
  });

  it.each([
    ['NaN', Number.NaN],
    ['unsafe integer', Number.MAX_SAFE_INTEGER + 2],
  ])('answers invalid, without throwing, for a non-text expiry (%s)', (_label, expires) => {
    const { signer, query } = setup();
    const loose = signer.verify as (query: Record<string, unknown>) => string;
    expect(loose({ ...query, expires })).toBe('invalid');
  });

  it('answers invalid, without throwing, for missing parts', () => {
    const { signer, query }: { signer: DownloadUrlSigner; query: Record<string, unknown> } = setup();
    const loose = signer.verify as (query: Record<string, unknown>) => string;
    expect(loose({ ...query, signature: undefined })).toBe('invalid');
    expect(loose({ ...query, expires: undefined })).toBe('invalid');
    expect(loose({ ...query, documentId: undefined })).toBe('invalid');
  });
});
