/** The one rule that finds API keys and webhook secrets in a text and masks them, read from the contracts' formats. */
import { describe, expect, it } from 'vitest';
import { holdsCredential, maskCredentials, masked, maskUrl } from '../../contract-model/credentials.ts';

const tail = 'Zq8RvT3mWx5Kp2Ln7Yc4Hb9Fd6Gs1Ja';
const key = `dk_test_${tail}`;
const shownKey = 'dk_test_…s1Ja';
const secret = 'whsec_MfKQ9r8GKYqrTwjU/PD8ILPZIo2u+LaLaSwXyZcV==';
const shownSecret = `whsec_${masked}`;

describe('maskCredentials', () => {
  it.each([
    ['a key alone', key, shownKey],
    ['a live key', `dk_live_${tail}`, 'dk_live_…s1Ja'],
    ['a secret alone', secret, shownSecret],
    ['after a letter', `x${key}`, `x${shownKey}`],
    ['after \\n and \\t written in JSON', `"\\n${key}\\t${key}"`, `"\\n${shownKey}\\t${shownKey}"`],
    ['followed by _', `${key}_1`, `${shownKey}_1`],
    ['run on into more of its characters', `${key}${'Q'.repeat(48)}`, 'dk_test_…QQQQ'],
    ['cut short', `dk_test_${tail.slice(0, 10)}`, 'dk_test_…'],
    ['in capitals', key.toUpperCase(), 'DK_TEST_…S1JA'],
    ['after %3D and %20', `a%3D${key}&b=c%20${key}`, `a%3D${shownKey}&b=c%20${shownKey}`],
    ['percent-encoded', `ref=dk%5Ftest%5F${tail}&x=1`, `ref=${shownKey}&x=1`],
    ['percent-encoded in lower case', `dk%5ftest%5f${tail}`, shownKey],
    ['every character percent-encoded', [...key].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''), shownKey],
    ['percent-encoded twice', `dk%255Ftest%255F${tail}`, shownKey],
    ['written with \\u escapes', `"dk\\u005ftest\\u005F${tail}"`, `"${shownKey}"`],
    ['written with \\u escapes in JSON in JSON', `"{\\"k\\":\\"dk\\\\u005ftest\\\\u005f${tail}\\"}"`, `"{\\"k\\":\\"${shownKey}\\"}"`],
    ['written with HTML character references', `dk&#95;test&#x5F;${tail}`, shownKey],
    ['a secret percent-encoded, %2F and %2B in it', encodeURIComponent(secret), shownSecret],
    ['a secret with \\/ in JSON', `"${secret.replace('/', '\\/')}"`, `"${shownSecret}"`],
    ['two of them with text between', `a ${key} b ${secret} c`, `a ${shownKey} b ${shownSecret} c`],
    ['after a run of escaped backslashes', `${'\\\\'.repeat(7)}${key}`, `${'\\\\'.repeat(7)}${shownKey}`],
    ['written with \\u escapes after an odd run of backslashes', `"\\\\\\dk\\u005ftest_${tail}"`, `"\\\\\\${shownKey}"`],
    ['between runs of backslashes', `${'\\'.repeat(40)}dk${'\\'.repeat(16)}u005ftest_${tail}${'\\'.repeat(9)}x`, `${'\\'.repeat(40)}${shownKey}${'\\'.repeat(9)}x`],
  ])('masks %s', (_, text, expected) => {
    expect(maskCredentials(text)).toBe(expected);
  });

  it('leaves a text with none as it is, escapes and all', () => {
    for (const text of ['', 'plain', '/v1/partner/customers?limit=5&cursor=a%2Bb', '{"a":"\\u00e9\\n"}', 'dk_test', 'whsec_', `dk_test_${masked}`]) expect(maskCredentials(text)).toBe(text);
  });

  it('leaves what it masked as it is: masking twice is masking once', () => {
    for (const text of [key, secret, `dk%5Ftest%5F${tail}`, `see ${key}, ${secret}`]) expect(maskCredentials(maskCredentials(text))).toBe(maskCredentials(text));
  });

  it('keeps a JSON text JSON, whatever escapes wrote the key', () => {
    const value = { a: `x\n${key}`, b: `dk\u005ftest_${tail}`, c: 'dk%5Ftest%5F' + tail, [key]: secret, d: `{"k":"dk\\u005ftest\\u005f${tail}"}` };
    const text = JSON.stringify(value).replace('dk_test_', 'dk\\u005ftest_');
    const parsed = JSON.parse(maskCredentials(text)) as Record<string, string>;
    expect(parsed).toEqual({ a: `x\n${shownKey}`, b: shownKey, c: shownKey, [shownKey]: shownSecret, d: `{"k":"${shownKey}"}` });
  });

  it('shows the last four characters of a whole key only', () => {
    expect(maskCredentials(`dk_test_${'a'.repeat(23)}wxyz`)).toBe('dk_test_…wxyz');
    expect(maskCredentials(`dk_test_${'a'.repeat(19)}wxyz`)).toBe('dk_test_…');
  });
});

describe('holdsCredential', () => {
  it.each([
    [key, true],
    [`dk%5Ftest%5F${tail}`, true],
    ['dk_test_', true],
    [`x-${secret}`, true],
    ['req_7Hq2mPz9XwL4', false],
    ['dk-test-abc', false],
    ['', false],
  ])('%s: %s', (text, expected) => {
    expect(holdsCredential(text)).toBe(expected);
  });
});

describe('maskUrl', () => {
  it.each([
    ['query values', 'http://hooks.example.com/in?token=abc&x=1', 'http://hooks.example.com/in?token=***&x=***'],
    ['a user, a password and a key in the path', `https://user:pw@hooks.example.com/${key}/in`, 'https://***:***@hooks.example.com/***/in'],
    ['a key percent-encoded in the path', `https://hooks.example.com/dk%5Ftest%5F${tail}`, 'https://hooks.example.com/***'],
    ['a secret in the fragment', `https://hooks.example.com/in#${secret}`, 'https://hooks.example.com/in#***'],
    ['one that does not parse', `not a url/${key}?token=abc`, 'not a url/***?***'],
  ])('hides %s, and stays a URL', (_, url, expected) => {
    expect(maskUrl(url)).toBe(expected);
  });
});
