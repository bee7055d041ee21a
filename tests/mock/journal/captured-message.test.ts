/** What the journal keeps of a message: credentials masked, values cut, text kept and binary summarised. */
import { describe, expect, it } from 'vitest';
import { capturedBody, capturedHeaders, capturedQuery, masked, maxBodyCharacters, maxHeaders, maxHeaderValueLength } from '../../../mock/journal/captured-message.ts';
import { encodeRequest, type RequestRecord } from '../../../mock/journal/journal-records.ts';

describe('capturedHeaders', () => {
  it('masks every credential, showing a valid key only masked', () => {
    const headers = { authorization: 'dk_test_secretsecretsecretsecret', cookie: 'a=b', 'set-cookie': ['x=1', 'y=2'], 'proxy-authorization': 'Basic eA==', 'x-mock-admin-token': 'tok', accept: '*/*' };
    expect(capturedHeaders(headers, 'dk_test_…cret')).toEqual({ authorization: 'dk_test_…cret', cookie: masked, 'set-cookie': masked, 'proxy-authorization': masked, 'x-mock-admin-token': masked, accept: '*/*' });
    expect(capturedHeaders({ authorization: 'Bearer abc' }).authorization).toBe(masked);
  });

  it('cuts long values, keeps values on one line, and keeps at most 64 headers', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`x-h${index}`, 'v']));
    expect(Object.keys(capturedHeaders(many))).toHaveLength(maxHeaders);
    const long = capturedHeaders({ 'x-long': 'a'.repeat(5000), 'x-broken': 'a\r\nb' });
    expect(long['x-long']).toHaveLength(maxHeaderValueLength);
    expect(long['x-long']?.endsWith('…')).toBe(true);
    expect(long['x-broken']).toBe('a\uFFFD\uFFFDb');
  });
});

describe('capturedBody', () => {
  it('keeps text whole up to the cap, and cuts it past, never inside a surrogate pair', () => {
    expect(capturedBody('{"a":1}', 'application/json')).toEqual({ bytes: 7, text: '{"a":1}', truncated: false });
    const text = `${'a'.repeat(maxBodyCharacters - 1)}😀tail`;
    const cut = capturedBody(Buffer.from(text), 'application/json');
    expect(cut).toMatchObject({ bytes: Buffer.byteLength(text), truncated: true });
    expect(cut?.text).toBe('a'.repeat(maxBodyCharacters - 1));
  });

  it('summarises a body that is not text by its size, declared or found so', () => {
    const pdf = Buffer.from('%PDF-1.7\n\xff\xfe binary', 'latin1');
    expect(capturedBody(pdf, 'application/pdf')).toEqual({ bytes: pdf.byteLength, text: null, truncated: false });
    expect(capturedBody(pdf, undefined)).toEqual({ bytes: pdf.byteLength, text: null, truncated: false });
    expect(capturedBody(pdf, 'application/json')).toEqual({ bytes: pdf.byteLength, text: null, truncated: false });
    expect(capturedBody(Buffer.from('plain'), undefined)).toEqual({ bytes: 5, text: 'plain', truncated: false });
  });

  it('has none for an empty or absent body', () => {
    expect(capturedBody(undefined, undefined)).toBeNull();
    expect(capturedBody('', 'application/json')).toBeNull();
    expect(capturedBody(Buffer.alloc(0), 'application/json')).toBeNull();
  });
});

describe('capturedQuery', () => {
  it('keeps the query string as sent, escaping what would break a line, and none without one', () => {
    expect(capturedQuery('/v1/partner/customers?limit=5&cursor=abc')).toEqual({ query: 'limit=5&cursor=abc', queryTruncated: false });
    expect(capturedQuery('/v1/partner/customers')).toEqual({ query: '', queryTruncated: false });
    expect(capturedQuery('/x?a=1 2\n').query).toBe('a=1%202%0A');
  });

  it('cuts a long one, never inside an escape, and says so', () => {
    // The escape would end past the 2048th character: the cut comes before it.
    const cut = capturedQuery(`/x?q=${'a'.repeat(2045)}%20tail`);
    expect(cut.queryTruncated).toBe(true);
    expect(cut.query).toBe(`q=${'a'.repeat(2045)}`);
    expect(capturedQuery(`/x?${'q'.repeat(5000)}`).query).toHaveLength(2048);
  });

  it('masks a parameter named as a credential, or whose name holds a key or the start of one', () => {
    const key = `dk_test_${'s'.repeat(20)}wxyz`;
    expect(capturedQuery(`/x?api_key=${key}&limit=5&access%5Ftoken=abc&signature=f00&${key.slice(0, 14)}=${key.slice(14)}&dk%5Ftest%5F=rest`).query).toBe(
      `api_key=${masked}&limit=5&access%5Ftoken=${masked}&signature=${masked}&${key.slice(0, 14)}=${masked}&dk%5Ftest%5F=${masked}`,
    );
  });
});

describe('a header whose name holds a key', () => {
  it('has its value masked: the rest of the key may be there', () => {
    const key = `dk_live_${'k'.repeat(30)}abcd`;
    expect(capturedHeaders({ [key.slice(0, 20)]: key.slice(20), 'x-api-key': 'anything', 'x-auth-token': 't', 'x-note': 'kept' })).toEqual({ [key.slice(0, 20)]: masked, 'x-api-key': masked, 'x-auth-token': masked, 'x-note': 'kept' });
  });
});

describe('an entry as the journal encodes it', () => {
  it('has every key and secret masked, whichever field holds it', () => {
    const key = `dk_live_${'k'.repeat(30)}abcd`;
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const record: RequestRecord = {
      atMs: 0,
      requestId: 'req_1',
      method: 'POST',
      path: `/v1/partner/customers/dk%5Flive%5F${'k'.repeat(30)}abcd`,
      operationId: null,
      status: 404,
      durationMs: 1,
      partner: null,
      replayed: false,
      errorCode: null,
      request: { query: `q=${encodeURIComponent(secret)}`, queryTruncated: false, headers: capturedHeaders({ [key]: '1', 'x-forwarded-note': `sent ${key}` }), body: capturedBody(JSON.stringify({ key, secret }), 'application/json') },
    };
    const encoded = Buffer.from(encodeRequest(record).bytes).toString();
    expect(encoded).not.toContain('k'.repeat(20));
    expect(encoded).not.toContain('MfKQ9r8G');
    const decoded = JSON.parse(encoded) as RequestRecord;
    expect(decoded.path).toBe('/v1/partner/customers/dk_live_…abcd');
    expect(decoded.request?.query).toBe(`q=whsec_${masked}`);
    expect(decoded.request?.headers).toEqual({ 'dk_live_…abcd': masked, 'x-forwarded-note': 'sent dk_live_…abcd' });
    expect(decoded.request?.body?.text).toBe(JSON.stringify({ key: 'dk_live_…abcd', secret: `whsec_${masked}` }));
  });
});

describe('a body of characters JSON escapes', () => {
  it('is cut so that its JSON stays within 32 KiB, and says it was cut', () => {
    const controls = '\x01'.repeat(maxBodyCharacters);
    const kept = capturedBody(Buffer.from(controls), 'text/plain');
    expect(kept?.truncated).toBe(true);
    expect(JSON.stringify(kept?.text).length).toBeLessThanOrEqual(32 * 1024);
    expect(kept?.text?.length).toBeGreaterThan(4000);
  });
});
