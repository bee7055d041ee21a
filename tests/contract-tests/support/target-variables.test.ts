import { describe, expect, it } from 'vitest';
import { readTargetVariables, TargetConfigError } from '../../../contract-tests/support/target-variables.ts';
import { UsageError } from '../../../contract-tests/support/usage-error.ts';

const key = `dk_test_${'a'.repeat(24)}`;

function problem(env: NodeJS.ProcessEnv): string {
  try {
    readTargetVariables(env);
  } catch (error) {
    expect(error).toBeInstanceOf(TargetConfigError);
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('the target variables every run reads', () => {
  it('name no target without CONTRACT_BASE_URL, so that the run starts the mock', () => {
    expect(readTargetVariables({})).toBeUndefined();
    expect(readTargetVariables({ CONTRACT_BASE_URL: '  ', CONTRACT_API_KEY: key })).toBeUndefined();
  });

  it('name the server and key, without a trailing slash', () => {
    expect(readTargetVariables({ CONTRACT_BASE_URL: ' https://sandbox.example/api/ ', CONTRACT_API_KEY: key })).toEqual({
      baseUrl: 'https://sandbox.example/api',
      apiKey: key,
    });
  });

  it('refuse a URL without a key, naming the missing variable', () => {
    expect(problem({ CONTRACT_BASE_URL: 'https://sandbox.example' })).toMatch(/CONTRACT_BASE_URL is set.*CONTRACT_API_KEY .* is not set/);
  });

  it.each([
    ['a URL that is not http(s)', { CONTRACT_BASE_URL: 'ftp://sandbox.example', CONTRACT_API_KEY: key }, /absolute http\(s\) URL/],
    ['a relative URL', { CONTRACT_BASE_URL: 'sandbox.example', CONTRACT_API_KEY: key }, /absolute http\(s\) URL/],
    ['a Bearer key', { CONTRACT_BASE_URL: 'https://sandbox.example', CONTRACT_API_KEY: `Bearer ${key}` }, /raw key/],
    ['a production key', { CONTRACT_BASE_URL: 'https://sandbox.example', CONTRACT_API_KEY: `dk_live_${'a'.repeat(24)}` }, /production/],
  ])('refuse %s', (_case, env, message) => {
    expect(problem(env)).toMatch(message);
  });
});
