/**
 * Checks an API key before any request is made, so that a misconfigured key fails at start-up with a message
 * that says what is wrong, instead of as a `401 E_AUTH_INVALID` on the first call. The rules are the contract's
 * (`ApiKey` security scheme). Messages never repeat the key: it is a secret and error messages end up in logs.
 */
import { contractFacts } from '../generated/contract-facts.ts';

const apiKeyFormat = new RegExp(contractFacts.apiKey.format);
const { sandbox, production } = contractFacts.apiKey.prefixes;

export function assertValidApiKey(apiKey: unknown): asserts apiKey is string {
  if (typeof apiKey !== 'string' || apiKey.length === 0) {
    throw new TypeError('createPartnerClient: `apiKey` is required (a `dk_test_…` or `dk_live_…` key).');
  }
  if (/^bearer\s/i.test(apiKey)) {
    throw new TypeError(
      'createPartnerClient: `apiKey` must be the raw key; drop the "Bearer " prefix (the API refuses it).',
    );
  }
  if (!apiKey.startsWith(sandbox) && !apiKey.startsWith(production)) {
    throw new TypeError(
      `createPartnerClient: \`apiKey\` must start with \`${sandbox}\` (sandbox) or \`${production}\` (production).`,
    );
  }
  if (!apiKeyFormat.test(apiKey)) {
    throw new TypeError(
      `createPartnerClient: \`apiKey\` (${apiKey.slice(0, 8)}…) does not have the contract's key format ` +
        `(${contractFacts.apiKey.format}): letters and digits after the prefix, with no spaces or line breaks.`,
    );
  }
}

