/**
 * What every request is held to, whatever the operation (see *Requests and responses*): bodies must be JSON
 * (`415`), valid JSON (`E_MALFORMED_JSON`, bytes that are not UTF-8 included) and at most 1 MiB (`413`, also when
 * sent chunked); unknown paths are `404`, known paths with another method `405` with `Allow`; `x-request-id` is
 * echoed, or generated when absent or holding a credential. These requests are malformed on purpose, so they are
 * sent raw — through the same contract check as the client's. Requests refused before routing are in
 * refusals-before-routing.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { contractFacts } from '../generated/contract-facts.ts';
import { contractOperations, documents } from './support/contract.ts';
import { api, customerRequest, newCompany, newIdempotencyKey, simulation } from './support/fixtures.ts';
import { rawRequest } from './support/observe.ts';

let companyId: string;
beforeAll(async () => {
  companyId = (await newCompany('LLC')).serviceCompanyId;
});

/** Every operation that takes a body, with a path to send it to and a valid body. */
function bodyOperations() {
  return contractOperations
    .filter((operation) => operation.requestBody !== undefined)
    .map((operation) => ({
      operationId: operation.operationId,
      path: operation.pathTemplate.replace('{companyId}', companyId),
      validBody: () =>
        JSON.stringify(
          operation.operationId === 'createCustomer'
            ? customerRequest()
            : operation.operationId === 'simulateCompanyFormation'
              ? simulation('SimulateFormationNext')
              : { serviceCustomerId: 'cus_8sWq2LmX4pTn7VbK3dRz9YhC' },
        ),
      headers: (extra: Record<string, string>) =>
        documents(operation, 409) && operation.operationId !== 'simulateCompanyFormation'
          ? { 'idempotency-key': newIdempotencyKey(), ...extra }
          : extra,
    }));
}

describe('request bodies', () => {
  it('covers every operation that takes a body', () => {
    expect(bodyOperations().map((operation) => operation.operationId).sort()).toEqual(
      ['createCompany', 'createCustomer', 'simulateCompanyFormation'].sort(),
    );
  });

  it.each(bodyOperations().map((operation) => [operation.operationId, operation] as const))(
    '%s refuses a body in another media type: 415 E_UNSUPPORTED_MEDIA_TYPE',
    async (_id, operation) => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const response = await rawRequest({
          method: 'POST',
          path: operation.path,
          headers: operation.headers({ 'content-type': contentType }),
          body: operation.validBody(),
        });
        expect([response.status, response.errorCode], contentType).toEqual([415, 'E_UNSUPPORTED_MEDIA_TYPE']);
      }
    },
  );

  it.each(bodyOperations().map((operation) => [operation.operationId, operation] as const))(
    '%s refuses a body over 1 MiB: 413 E_PAYLOAD_TOO_LARGE',
    async (_id, operation) => {
      // Valid JSON, so that only the size is wrong.
      const body = JSON.stringify({ padding: 'x'.repeat(contractFacts.limits.requestBodyMaxBytes) });
      const response = await rawRequest({
        method: 'POST',
        path: operation.path,
        headers: operation.headers({ 'content-type': 'application/json' }),
        body,
      });
      expect([response.status, response.errorCode]).toEqual([413, 'E_PAYLOAD_TOO_LARGE']);
    },
  );

  it.each(bodyOperations().map((operation) => [operation.operationId, operation] as const))(
    '%s refuses a body that is not JSON: 400 E_MALFORMED_JSON',
    async (_id, operation) => {
      for (const body of ['{"email": "ada@example.com",', "{'single': 'quotes'}", 'not json at all']) {
        const response = await rawRequest({
          method: 'POST',
          path: operation.path,
          headers: operation.headers({ 'content-type': 'application/json; charset=utf-8' }),
          body,
        });
        expect([response.status, response.errorCode], body).toEqual([400, 'E_MALFORMED_JSON']);
        // `details` is for E_VALIDATION_FAILED only.
        expect((response.json as { error: { details?: unknown } }).error.details, body).toBeUndefined();
      }
    },
  );

  // JSON is UTF-8 (RFC 8259): bytes that are not are not JSON, whatever a lenient decoder would make of them.
  it.each([
    ['two bytes that start no character', [0xff, 0xfe]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
  ])('refuses a body that is not UTF-8 with 400 E_MALFORMED_JSON, and creates nothing: %s', async (_label, bad) => {
    const customer = customerRequest();
    const [before, after] = JSON.stringify({ ...customer, firstName: 'PLACEHOLDER' }).split('PLACEHOLDER') as [string, string];
    const encoder = new TextEncoder();
    // Not stored with the bytes replaced (U+FFFD): no customer has the email.
    await expectMalformedAndNothingCreated(customer.email, new Uint8Array([...encoder.encode(`${before}Ad`), ...bad, ...encoder.encode(after)]));
  });

  // The same character written as an escape is no text either (I-JSON, RFC 7493): a surrogate stands for nothing
  // without its pair, and a name holding one could not be filed, printed or even sent back as valid UTF-8.
  it.each([
    ['a high surrogate alone', '\\ud800'],
    ['a low surrogate alone', '\\udc00'],
    ['a pair in the wrong order', '\\udc00\\ud800'],
  ])('refuses a string with a lone surrogate with 400 E_MALFORMED_JSON, and creates nothing: %s', async (_label, escape) => {
    const customer = customerRequest();
    await expectMalformedAndNothingCreated(customer.email, JSON.stringify({ ...customer, firstName: 'PLACEHOLDER' }).replace('PLACEHOLDER', `Ad${escape}`));
  });

  /** A createCustomer whose body is no text: 400 E_MALFORMED_JSON, and no customer made with the body's email. */
  async function expectMalformedAndNothingCreated(email: string, body: string | Uint8Array): Promise<void> {
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body,
    });
    expect([response.status, response.errorCode]).toEqual([400, 'E_MALFORMED_JSON']);
    expect((await api.listCustomers({ email })).payload.data).toEqual([]);
  }

  it('accepts a surrogate pair written as escapes: one character, kept as sent', async () => {
    const body = JSON.stringify({ ...customerRequest(), firstName: 'PLACEHOLDER' }).replace('PLACEHOLDER', 'Ad\\ud83d\\ude00');
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body,
    });
    expect(response.status).toBe(200);
    expect((response.json as { payload: { firstName: string } }).payload.firstName).toBe('Ad\u{1F600}');
  });

  it('counts a chunked body while reading it: over 1 MiB is 413 E_PAYLOAD_TOO_LARGE', async () => {
    // No Content-Length to refuse up front: 17 chunks of 64 KiB, the last of which passes the limit.
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 17) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body,
    });
    expect([response.status, response.errorCode]).toEqual([413, 'E_PAYLOAD_TOO_LARGE']);
  });

  it('accepts application/json with a charset parameter', async () => {
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotency-key': newIdempotencyKey() },
      body: JSON.stringify(customerRequest()),
    });
    expect(response.status).toBe(200);
  });
});

describe('routing', () => {
  it('answers 404 E_NOT_FOUND for a path the API does not have', async () => {
    for (const path of ['/v1/partner/nothing-here', '/v2/partner/customers', '/v1/partner/customers/cus_8sWq2LmX4pTn7VbK3dRz9YhC/extra']) {
      const response = await rawRequest({ method: 'GET', path });
      expect([response.status, response.errorCode], path).toEqual([404, 'E_NOT_FOUND']);
    }
  });

  it('answers 405 E_METHOD_NOT_ALLOWED with Allow for a path it has with another method', async () => {
    const allowed = (response: { headers: Headers }) =>
      response.headers
        .get('allow')
        ?.split(',')
        .map((method) => method.trim())
        .sort();
    const response = await rawRequest({ method: 'DELETE', path: '/v1/partner/customers' });
    expect([response.status, response.errorCode]).toEqual([405, 'E_METHOD_NOT_ALLOWED']);
    expect(allowed(response)).toEqual(['GET', 'POST']);
    const company = await rawRequest({
      method: 'PUT',
      path: `/v1/partner/companies/${companyId}`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([company.status, company.errorCode]).toEqual([405, 'E_METHOD_NOT_ALLOWED']);
    expect(allowed(company)).toEqual(['GET']);
  });
});

describe('x-request-id', () => {
  it('is echoed on success and on error, and is the error requestId', async () => {
    const { meta } = await api.listStates({ limit: 1 }, { requestId: 'req_contract-tests-echo' });
    expect(meta.response.headers.get('x-request-id')).toBe('req_contract-tests-echo');
    const response = await rawRequest({ method: 'GET', path: '/v1/partner/reference/states?limit=0', requestId: 'req_echo-on-error' });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-request-id')).toBe('req_echo-on-error');
    expect((response.json as { error: { requestId: string } }).error.requestId).toBe('req_echo-on-error');
  });

  it('is generated when none is sent', async () => {
    const response = await rawRequest({ method: 'GET', path: '/v1/partner/reference/states?limit=1', requestId: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^[!-~]{1,200}$/);
  });

  it('is never echoed when it holds an API key or a signing secret, or the start of one: a new one is generated', async () => {
    const tail = 'Zq8RvT3mWx5Kp2Ln7Yc4Hb9Fd6Gs1Ja';
    const prefix = contractFacts.apiKey.prefixes.sandbox;
    for (const sent of [`${prefix}${tail}`, `ref-${prefix}${tail}`, `${prefix.replaceAll('_', '%5F')}${tail}`, `${prefix}${tail.slice(0, 8)}`, `whsec_${tail}`]) {
      const response = await rawRequest({ method: 'GET', path: '/v1/partner/reference/states?limit=1', requestId: sent });
      expect(response.status, sent).toBe(200);
      const generated = response.headers.get('x-request-id');
      expect(generated, sent).toMatch(/^[!-~]{1,200}$/);
      expect(generated, sent).not.toContain(tail.slice(0, 8));
    }
  });

  it('is refused when it is not 1 to 200 visible ASCII characters, and the answer carries a generated one', async () => {
    const response = await rawRequest({ method: 'GET', path: '/v1/partner/reference/states', requestId: 'r'.repeat(201) });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toContainEqual(expect.objectContaining({ in: 'header', field: '/x-request-id' }));
    expect(response.headers.get('x-request-id')).toMatch(/^[!-~]{1,200}$/);
  });
});

describe('rate-limit headers', () => {
  it('come on every response, within their bounds', async () => {
    const { meta } = await api.listStates({ limit: 1 });
    const limit = Number(meta.response.headers.get('ratelimit-limit'));
    const remaining = Number(meta.response.headers.get('ratelimit-remaining'));
    expect(limit).toBeGreaterThan(0);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(remaining).toBeLessThanOrEqual(limit);
    expect(Number(meta.response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    const policy = /^(\d+);w=(\d+);burst=(\d+)$/.exec(meta.response.headers.get('ratelimit-policy') ?? '');
    expect(policy?.slice(1).map(Number)).toEqual([limit, 1, limit * 2]);
  });
});
