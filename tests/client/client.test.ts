import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentWithDownloadUrl } from '../../generated/openapi.js';
import {
  createPartnerClient,
  paginate,
  PartnerApiError,
  PartnerNetworkError,
  PartnerUnexpectedResponseError,
  type PartnerClientOptions,
  type RetryOptions,
} from '../../client/index.ts';
import { fail, ok, startFakeServer, type FakeServer } from './fake-server.ts';
import { apiKey, customer, customerPage, newCustomer, newLlc, ownershipDetail } from './fixtures.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: FakeServer;
/** The waits the client asked for, in ms; the injected sleep returns at once so the tests stay fast. */
let delays: number[];

beforeEach(async () => {
  server = await startFakeServer();
  delays = [];
});
afterEach(() => server.close());

function client(options: Partial<PartnerClientOptions> & { retry?: RetryOptions } = {}) {
  return createPartnerClient({
    baseUrl: server.baseUrl,
    apiKey,
    ...options,
    retry: {
      sleep: async (ms) => {
        delays.push(ms);
      },
      ...options.retry,
    },
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to fail.');
}

describe('createPartnerClient', () => {
  it.each([
    ['missing', ''],
    ['Bearer-prefixed', `Bearer ${apiKey}`],
    ['of an unknown prefix', 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'],
    ['too short', 'dk_live_abc'],
  ])('refuses an API key that is %s, up front', (_, key) => {
    expect(() => createPartnerClient({ baseUrl: server.baseUrl, apiKey: key })).toThrow(TypeError);
  });

  it('never repeats the key in its error message', () => {
    const key = 'dk_live_Zq81SecretPart 0123456789abcdef';
    expect(() => createPartnerClient({ baseUrl: server.baseUrl, apiKey: key })).toThrow(/dk_live_…/);
    expect(() => createPartnerClient({ baseUrl: server.baseUrl, apiKey: key })).not.toThrow(/Zq81/);
  });

  it('refuses a base URL that is not absolute', () => {
    expect(() => createPartnerClient({ baseUrl: '/v1', apiKey })).toThrow(/baseUrl/);
  });
});

describe('request headers', () => {
  it('sends the raw API key in Authorization, with no Bearer prefix', async () => {
    server.reply(ok(customer()));
    await client().getCustomer({ customerId: 'cus_1' });
    expect(server.requests[0]?.headers.authorization).toBe(apiKey);
  });

  it('sends a generated x-request-id, a new one per call, and reports the echoed one', async () => {
    server.reply(ok(customer()), ok(customer()));
    const api = client();
    const first = await api.getCustomer({ customerId: 'cus_1' });
    await api.getCustomer({ customerId: 'cus_1' });
    const [a, b] = server.requests.map((request) => request.headers['x-request-id']);
    expect(a).toMatch(/^req_[0-9a-f]{32}$/);
    expect(b).toMatch(/^req_[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(first.meta.requestId).toBe(a);
  });

  it('keeps an x-request-id given for the call, and uses the client-wide generator otherwise', async () => {
    server.reply(ok(customer()), ok(customer()));
    const api = client({ requestId: () => 'req_generated' });
    await api.getCustomer({ customerId: 'cus_1' }, { requestId: 'req_mine' });
    await api.getCustomer({ customerId: 'cus_1' });
    expect(server.requests.map((request) => request.headers['x-request-id'])).toEqual(['req_mine', 'req_generated']);
  });

  it('puts path parameters in the path and the rest in the query', async () => {
    server.reply(ok({ data: [], hasMore: false, nextCursor: null }));
    await client().listCompanyDocuments({ companyId: 'com_1', limit: 5 });
    expect(server.requests[0]?.url).toBe('/v1/partner/companies/com_1/documents?limit=5');
  });
});

describe('idempotency keys', () => {
  it('generates a UUID Idempotency-Key for createCustomer and createCompany', async () => {
    server.reply(ok(customer()), ok({}, 202));
    const api = client();
    const created = await api.createCustomer(newCustomer);
    await api.createCompany(newLlc);
    const [first, second] = server.requests.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(uuid);
    expect(second).toMatch(uuid);
    expect(first).not.toBe(second);
    expect(created.meta.idempotencyKey).toBe(first);
  });

  it('sends none with reads', async () => {
    server.reply(ok(customer()), ok(customerPage([], null)));
    const api = client();
    await api.getCustomer({ customerId: 'cus_1' });
    await api.listCustomers();
    expect(server.requests.map((request) => request.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });

  it('keeps a key given for the call, and reports a replay', async () => {
    server.reply(ok(customer(), 200, { 'Idempotent-Replayed': 'true' }));
    const { payload, meta } = await client().createCustomer(newCustomer, { idempotencyKey: 'order-42' });
    expect(server.requests[0]?.headers['idempotency-key']).toBe('order-42');
    expect(payload.serviceCustomerId).toBe(customer().serviceCustomerId);
    expect(meta).toMatchObject({ idempotencyKey: 'order-42', idempotentReplayed: true, status: 200, attempts: 1 });
  });

  it('reuses the same key, and the same body, on every retry of a create', async () => {
    server.reply(
      fail(503, 'E_SERVICE_UNAVAILABLE', 'Maintenance.', { headers: { 'Retry-After': '0' } }),
      fail(500, 'E_INTERNAL', 'Oops.'),
      fail(409, 'E_IDEMPOTENCY_KEY_IN_PROGRESS', 'Still processing.', { headers: { 'Retry-After': '0' } }),
      ok(customer()),
    );
    const { meta } = await client().createCustomer(newCustomer);
    expect(server.requests).toHaveLength(4);
    const keys = new Set(server.requests.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(uuid);
    expect(server.requests.map((request) => JSON.parse(request.body))).toEqual(Array(4).fill(newCustomer));
    expect(meta.attempts).toBe(4);
    expect(meta.idempotencyKey).toBe([...keys][0]);
  });

  it('adds a key to a create sent through the raw client', async () => {
    server.reply(ok(customer()));
    const { data } = await client().raw.POST('/v1/partner/customers', { body: newCustomer });
    expect(server.requests[0]?.headers['idempotency-key']).toMatch(uuid);
    expect(server.requests[0]?.headers.authorization).toBe(apiKey);
    expect(data?.payload.email).toBe(customer().email);
  });
});

describe('retries', () => {
  it('retries a 429, waiting Retry-After seconds', async () => {
    server.reply(fail(429, 'E_RATE_LIMITED', 'Slow down.', { headers: { 'Retry-After': '1' } }), ok(customer()));
    const { meta } = await client().getCustomer({ customerId: 'cus_1' });
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
    expect(meta.attempts).toBe(2);
  });

  it('retries a 503, and caps Retry-After at maxDelayMs', async () => {
    server.reply(
      fail(503, 'E_SERVICE_UNAVAILABLE', 'Maintenance.', { headers: { 'Retry-After': '120' } }),
      ok(customer()),
    );
    await client({ retry: { maxDelayMs: 50 } }).getCustomer({ customerId: 'cus_1' });
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([50]);
  });

  it.each([500, 502, 504])('retries a %i with exponential backoff', async (status) => {
    server.reply({ status, body: 'bad gateway' }, { status, body: 'bad gateway' }, ok(customer()));
    await client({ retry: { baseDelayMs: 100, random: () => 0 } }).getCustomer({ customerId: 'cus_1' });
    expect(server.requests).toHaveLength(3);
    // With no jitter drawn, each wait is half its step: steps of 100, 200.
    expect(delays).toEqual([50, 100]);
  });

  it('draws jitter within each doubling step, up to maxDelayMs', async () => {
    server.reply(...Array(5).fill(fail(500, 'E_INTERNAL', 'Oops.')), ok(customer()));
    await client({ retry: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 400, random: () => 0.999 } }).getCustomer({
      customerId: 'cus_1',
    });
    expect(delays.map(Math.round)).toEqual([100, 200, 400, 400, 400]);
  });

  it('retries a dropped connection', async () => {
    server.reply('drop', ok(customer()));
    const { payload, meta } = await client().getCustomer({ customerId: 'cus_1' });
    expect(server.requests).toHaveLength(2);
    expect(payload.email).toBe(customer().email);
    expect(meta.attempts).toBe(2);
  });

  it('gives up after maxAttempts and surfaces the last error', async () => {
    server.reply(
      fail(503, 'E_SERVICE_UNAVAILABLE', 'Maintenance.', { headers: { 'Retry-After': '0' } }),
      fail(503, 'E_SERVICE_UNAVAILABLE', 'Maintenance.', { headers: { 'Retry-After': '0' } }),
      fail(503, 'E_SERVICE_UNAVAILABLE', 'Still in maintenance.', { headers: { 'Retry-After': '7' } }),
    );
    const error = await rejection(client({ retry: { maxAttempts: 3 } }).getCustomer({ customerId: 'cus_1' }));
    expect(server.requests).toHaveLength(3);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({
      status: 503,
      code: 'E_SERVICE_UNAVAILABLE',
      message: 'Still in maintenance.',
      retryAfter: 7,
    });
  });

  it('gives up on a connection that keeps dropping with a PartnerNetworkError', async () => {
    server.reply('drop', 'drop', 'drop', 'drop');
    const error = await rejection(client().createCustomer(newCustomer, { idempotencyKey: 'order-7' }));
    expect(server.requests).toHaveLength(4);
    expect(error).toBeInstanceOf(PartnerNetworkError);
    expect(error).toMatchObject({ attempts: 4, idempotencyKey: 'order-7' });
    expect((error as PartnerNetworkError).cause).toBeInstanceOf(Error);
  });

  it('does not retry when maxAttempts is 1', async () => {
    server.reply(fail(500, 'E_INTERNAL', 'Oops.'));
    await expect(client({ retry: { maxAttempts: 1 } }).listCountries()).rejects.toBeInstanceOf(PartnerApiError);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [400, 'E_VALIDATION_FAILED'],
    [401, 'E_AUTH_INVALID'],
    [404, 'E_NOT_FOUND'],
    [409, 'E_IDEMPOTENCY_KEY_REUSED'],
  ] as const)('does not retry a %i %s', async (status, code) => {
    server.reply(fail(status, code, 'No.'));
    const error = await rejection(client().createCustomer(newCustomer));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status, code });
  });

  it('does not replay a write without Idempotency-Key after an ambiguous failure, but does after a 429', async () => {
    server.reply(
      fail(429, 'E_RATE_LIMITED', 'Slow down.', { headers: { 'Retry-After': '0' } }),
      fail(500, 'E_INTERNAL', 'Oops.'),
    );
    const error = await rejection(client().simulateCompanyFormation({ companyId: 'com_1' }, { target: 'NEXT' }));
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers['idempotency-key']).toBeUndefined();
    expect(error).toMatchObject({ status: 500, code: 'E_INTERNAL' });
  });

  it('stops waiting and rejects with the abort reason when the call is aborted', async () => {
    server.reply(fail(503, 'E_SERVICE_UNAVAILABLE', 'Maintenance.', { headers: { 'Retry-After': '30' } }));
    const controller = new AbortController();
    // The default sleep, for real: it must give up its 30 s wait when aborted.
    const api = createPartnerClient({ baseUrl: server.baseUrl, apiKey, retry: { maxDelayMs: 30_000 } });
    const call = api.getCustomer({ customerId: 'cus_1' }, { signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors', () => {
  it('are PartnerApiError with the code, details and requestId of the envelope', async () => {
    server.reply(
      fail(400, 'E_VALIDATION_FAILED', 'The request is invalid: see details.', { details: [ownershipDetail] }),
    );
    const error = await rejection(client().createCustomer(newCustomer, { requestId: 'req_trace_1' }));
    expect(error).toBeInstanceOf(PartnerApiError);
    const apiError = error as PartnerApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe('E_VALIDATION_FAILED');
    expect(apiError.message).toBe('The request is invalid: see details.');
    expect(apiError.requestId).toBe('req_trace_1');
    expect(apiError.details).toEqual([ownershipDetail]);
    expect(apiError.retryAfter).toBeUndefined();
    expect(apiError.idempotencyKey).toMatch(uuid);
  });

  it('have empty details when the envelope has none', async () => {
    server.reply(fail(404, 'E_NOT_FOUND', 'No customer cus_1.'));
    const error = await rejection(client().getCustomer({ customerId: 'cus_1' }));
    expect(error).toMatchObject({ code: 'E_NOT_FOUND', details: [] });
  });

  it('are PartnerUnexpectedResponseError when the body is not the envelope', async () => {
    server.reply({ status: 418, body: '<html>teapot</html>', headers: { 'content-type': 'text/html' } });
    const error = await rejection(client().getCustomer({ customerId: 'cus_1' }));
    expect(error).toBeInstanceOf(PartnerUnexpectedResponseError);
    expect(error).toMatchObject({ status: 418, body: '<html>teapot</html>' });
  });

  it('are PartnerUnexpectedResponseError when a success lacks the envelope', async () => {
    server.reply({ status: 200, json: customer() });
    await expect(client().getCustomer({ customerId: 'cus_1' })).rejects.toBeInstanceOf(PartnerUnexpectedResponseError);
  });
});

describe('paginate', () => {
  it('walks nextCursor through three pages, keeping the filters', async () => {
    server.reply(
      ok(customerPage([1, 2], 'cursor-2')),
      ok(customerPage([3, 4], 'cursor-3')),
      ok(customerPage([5], null)),
    );
    const emails: string[] = [];
    for await (const item of paginate(client().listCustomers, { email: 'a@example.com', limit: 2 })) {
      emails.push(item.email);
    }
    expect(emails).toEqual([1, 2, 3, 4, 5].map((n) => customer(n).email));
    expect(server.requests.map((request) => request.url)).toEqual([
      '/v1/partner/customers?email=a%40example.com&limit=2',
      '/v1/partner/customers?email=a%40example.com&limit=2&cursor=cursor-2',
      '/v1/partner/customers?email=a%40example.com&limit=2&cursor=cursor-3',
    ]);
  });

  it('fetches no further page once the loop is left', async () => {
    server.reply(ok(customerPage([1, 2], 'cursor-2')));
    for await (const item of paginate(client().listCustomers)) {
      expect(item.email).toBe(customer(1).email);
      break;
    }
    expect(server.requests).toHaveLength(1);
  });
});

describe('downloadDocument', () => {
  const document = (url: string): DocumentWithDownloadUrl => ({
    documentId: 'doc_1',
    serviceCompanyId: 'com_1',
    type: 'ARTICLES_OF_ORGANIZATION',
    fileName: 'articles-of-organization.pdf',
    contentType: 'application/pdf',
    sizeBytes: 8,
    sha256: '0'.repeat(64),
    readyAt: '2026-11-24T09:00:05Z',
    downloadUrl: url,
    downloadUrlExpiresAt: '2026-11-24T09:15:05Z',
  });

  it('fetches the PDF from the signed URL, without the API key', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7');
    const signedPath = '/v1/partner/companies/com_1/documents/doc_1/content?expires=1795344900&signature=kM3r';
    server.reply(ok(document(`${server.baseUrl}${signedPath}`)), {
      status: 200,
      body: pdf,
      headers: { 'content-type': 'application/pdf' },
    });
    const api = client();
    const { payload } = await api.getCompanyDocument({ companyId: 'com_1', documentId: 'doc_1' });
    const file = await api.downloadDocument(payload.downloadUrl);
    expect(file.payload).toEqual(pdf);
    expect(server.requests[1]?.url).toBe(signedPath);
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
    expect(server.requests[1]?.headers['x-request-id']).toBe(file.meta.requestId);
  });

  it('turns an expired URL into PartnerApiError E_DOWNLOAD_URL_EXPIRED', async () => {
    server.reply(fail(403, 'E_DOWNLOAD_URL_EXPIRED', 'The download URL has expired.'));
    const error = await rejection(client().downloadCompanyDocument(`${server.baseUrl}/v1/x?expires=1&signature=s`));
    expect(error).toMatchObject({ status: 403, code: 'E_DOWNLOAD_URL_EXPIRED' });
  });
});
