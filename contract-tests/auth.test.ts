/**
 * Authentication (the `ApiKey` scheme): every operation that takes the key refuses a missing one with
 * `401 E_AUTH_MISSING`, and a `Bearer`-prefixed, malformed or other-environment key with `401 E_AUTH_INVALID`,
 * before anything else runs. The requests are otherwise well-formed (the client's own calls), so the key is the
 * only thing wrong.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../client/index.ts';
import { contractOperations, documents } from './support/contract.ts';
import { api, apiError, customerRequest, partnerClient, target } from './support/fixtures.ts';
import { operationCalls, prepareWorld, type World } from './support/operation-calls.ts';

let world: World;
beforeAll(async () => {
  world = await prepareWorld();
});

/** The operations that document a 401: every one but the download, whose URL carries its own authorization. */
const keyedOperations = contractOperations.filter((operation) => documents(operation, 401)).map((operation) => operation.operationId);

/** No retries: a 401 is final, and a create without a key must not be sent twice. */
const withAuthorization = (authorization: string | null) => partnerClient({ authorization, retry: { maxAttempts: 1 } });

const otherEnvironmentPrefix = target.apiKey.startsWith('dk_test_') ? 'dk_live_' : 'dk_test_';
const ownPrefix = target.apiKey.slice(0, 8);

describe('a request without Authorization', () => {
  it('is checked on every operation that documents 401', () => {
    expect(keyedOperations).not.toContain('downloadCompanyDocument');
    expect(keyedOperations.length).toBe(contractOperations.length - 1);
  });

  it.each(keyedOperations)('%s answers 401 E_AUTH_MISSING', async (operationId: OperationId) => {
    const error = await apiError(operationCalls[operationId](withAuthorization(null), world));
    expect([error.status, error.code]).toEqual([401, 'E_AUTH_MISSING']);
  });
});

describe('a request with a key that is not valid here', () => {
  const cases: [string, string][] = [
    ['Bearer-prefixed', `Bearer ${target.apiKey}`],
    ['lower-case bearer', `bearer ${target.apiKey}`],
    ['too short', `${ownPrefix}abc`],
    // The format's bounds: 24 to 64 letters and digits after the prefix.
    ['one character too short (23)', `${ownPrefix}${'a'.repeat(23)}`],
    ['one character too long (65)', `${ownPrefix}${'a'.repeat(65)}`],
    ['with a character outside letters and digits', `${target.apiKey.slice(0, -1)}-`],
    ['of another scheme', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'],
    ['of no environment (dk_prod_)', `dk_prod_${'a'.repeat(24)}`],
    ['with no prefix', 'a'.repeat(32)],
    ['with text around the key', `key=${target.apiKey}`],
    ['of the other environment', `${otherEnvironmentPrefix}${target.apiKey.slice(8)}`],
    ['empty of a key after the prefix', ownPrefix],
  ];

  it.each(cases.map(([label, authorization]) => ({ label, authorization })))('$label: 401 E_AUTH_INVALID', async ({ authorization }) => {
    const error = await apiError(withAuthorization(authorization).listCustomers({ limit: 1 }));
    expect([error.status, error.code]).toEqual([401, 'E_AUTH_INVALID']);
    // The error still carries the request id, for support.
    expect(error.requestId).toMatch(/^[!-~]{1,200}$/);
  });

  it('the other environment refuses a create too, before anything is created', async () => {
    const client = withAuthorization(`${otherEnvironmentPrefix}${target.apiKey.slice(8)}`);
    const body = customerRequest();
    const error = await apiError(client.createCustomer(body));
    expect([error.status, error.code]).toEqual([401, 'E_AUTH_INVALID']);
    expect((await api.listCustomers({ email: body.email })).payload.data).toEqual([]);
  });
});
