/**
 * The two variables that point a run at a server other than the mock: CONTRACT_BASE_URL and CONTRACT_API_KEY.
 * The vitest suite, the Dredd runner and the Arazzo runner all read them here, so that they accept and refuse the
 * same values in the same words.
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import { UsageError } from './usage-error.ts';

export class TargetConfigError extends UsageError {
  override name = 'TargetConfigError';
}

export interface TargetVariables {
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey: string;
}

/** The variables a run against a sandbox needs, with what each is for. */
export const requiredTargetVariables = [
  ['CONTRACT_BASE_URL', 'the sandbox base URL, e.g. https://sandbox.api.partner-formation.example'],
  ['CONTRACT_API_KEY', 'a dk_test_ key of the partner the tests act as'],
] as const;

/** A variable's value; `undefined` when it is unset or blank. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

const apiKeyFormat = new RegExp(contractFacts.apiKey.format);

/** Refuses anything but a raw sandbox key, named by its variable in the message. */
export function checkSandboxKey(name: string, key: string): void {
  if (!apiKeyFormat.test(key)) {
    throw new TargetConfigError(`${name} must be a raw key: dk_test_ followed by 24 to 64 letters and digits, no "Bearer ".`);
  }
  // The tests create customers and formations: in production they would be filed and charged.
  if (key.startsWith('dk_live_')) {
    throw new TargetConfigError(`${name} is a production (dk_live_) key. The tests create formations: run them only against a sandbox, with dk_test_ keys.`);
  }
}

/** `undefined` when CONTRACT_BASE_URL is unset: the run then starts the mock and makes up its own keys. */
export function readTargetVariables(env: NodeJS.ProcessEnv): TargetVariables | undefined {
  const baseUrl = envValue(env, 'CONTRACT_BASE_URL');
  if (baseUrl === undefined) return undefined;
  const missing = requiredTargetVariables.filter(([name]) => envValue(env, name) === undefined);
  if (missing.length > 0) {
    throw new TargetConfigError(
      `CONTRACT_BASE_URL is set, so the run targets it, but ${missing.map(([name, what]) => `${name} (${what})`).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new TargetConfigError(`CONTRACT_BASE_URL must be an absolute http(s) URL; it is ${JSON.stringify(baseUrl)}.`);
  }
  const apiKey = envValue(env, 'CONTRACT_API_KEY') as string;
  checkSandboxKey('CONTRACT_API_KEY', apiKey);
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey };
}
