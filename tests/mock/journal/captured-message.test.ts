/** What the journal keeps of a message: credentials masked, values cut, text kept and binary summarised. */
import { describe, expect, it } from 'vitest';
import { capturedBody, capturedHeaders, capturedQuery, masked, maxBodyCharacters, maxHeaders, maxHeaderValueLength } from '../../../mock/journal/captured-message.ts';

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
    expect(capturedQuery('/v1/partner/customers?limit=5&cursor=abc')).toBe('limit=5&cursor=abc');
    expect(capturedQuery('/v1/partner/customers')).toBe('');
    expect(capturedQuery('/x?a=1 2\n')).toBe('a=1%202%0A');
    expect(capturedQuery(`/x?${'q'.repeat(5000)}`)).toHaveLength(2048);
  });
});
