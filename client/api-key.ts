/**
 * Checks an API key before any request is made, so that a misconfigured key fails at start-up with a message
 * that says what is wrong, instead of as a `401 E_AUTH_INVALID` on the first call. The rules are the contract's
 * (`ApiKey` security scheme). Messages never repeat the key: it is a secret and error messages end up in logs.
 */
const apiKeyFormat = /^dk_(test|live)_[A-Za-z0-9]{24,64}$/;

export function assertValidApiKey(apiKey: unknown): asserts apiKey is string {
  if (typeof apiKey !== 'string' || apiKey.length === 0) {
    throw new TypeError('createPartnerClient: `apiKey` is required (a `dk_test_…` or `dk_live_…` key).');
  }
  if (/^bearer\s/i.test(apiKey)) {
    throw new TypeError(
      'createPartnerClient: `apiKey` must be the raw key; drop the "Bearer " prefix (the API refuses it).',
    );
  }
  if (!apiKey.startsWith('dk_test_') && !apiKey.startsWith('dk_live_')) {
    throw new TypeError(
      'createPartnerClient: `apiKey` must start with `dk_test_` (sandbox) or `dk_live_` (production).',
    );
  }
  if (!apiKeyFormat.test(apiKey)) {
    throw new TypeError(
      `createPartnerClient: \`apiKey\` (${apiKey.slice(0, 8)}…) must be followed by 24 to 64 letters and digits, ` +
        'with no spaces or line breaks.',
    );
  }
}

