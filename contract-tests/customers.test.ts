/**
 * createCustomer, getCustomer, listCustomers: created from the contract's example, unique per partner by email
 * (case-insensitively), listed newest first across pages (a customer created meanwhile does not shift them), and
 * the body's and parameters' problems refused with their field-level codes.
 */
import { describe, expect, it } from 'vitest';
import type { Customer } from '../generated/openapi.js';
import { api, apiError, customerRequest, newCustomer, newIdempotencyKey, unknownId } from './support/fixtures.ts';
import { exampleValue } from './support/contract.ts';
import { rawRequest } from './support/observe.ts';

describe('createCustomer', () => {
  it('creates the customer of the example, once', async () => {
    const body = customerRequest();
    const { payload, meta } = await api.createCustomer(body);
    expect(meta.status).toBe(200);
    expect(meta.idempotentReplayed).toBe(false);
    expect(payload).toMatchObject({ ...body, created: true, companies: [] });
    expect(payload.serviceCustomerId).toMatch(/^cus_/);
  });

  it('returns the existing customer, unchanged and with created: false, for an email it already has (any case)', async () => {
    const body = customerRequest();
    const first = (await api.createCustomer(body)).payload;
    const again = (await api.createCustomer({ ...body, firstName: 'Augusta' })).payload;
    expect(again).toEqual({ ...first, created: false });
    const shouted = (await api.createCustomer({ ...body, email: body.email.toUpperCase() })).payload;
    expect(shouted.serviceCustomerId).toBe(first.serviceCustomerId);
    expect(shouted.created).toBe(false);
  });

  it('refuses a body that breaks the schema, naming each field', async () => {
    const { email: _email, ...withoutEmail } = customerRequest();
    const error = await apiError(api.createCustomer({ ...withoutEmail, countryOfResidence: 'gbr' } as never));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'body', field: '/email', code: 'E_REQUIRED' }),
        expect.objectContaining({ in: 'body', field: '/countryOfResidence', code: 'E_PATTERN' }),
      ]),
    );
  });

  it('lists every problem of a body, each with its own code', async () => {
    const error = await apiError(api.createCustomer({ email: 'not-an-email', firstName: '', countryOfResidence: 'gbr', phoneNumber: 12 } as never));
    expect([error.status, error.code]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(error.details.map(({ in: where, field, code }) => ({ in: where, field, code }))).toEqual(
      expect.arrayContaining([
        { in: 'body', field: '/lastName', code: 'E_REQUIRED' },
        { in: 'body', field: '/email', code: 'E_FORMAT' },
        { in: 'body', field: '/firstName', code: 'E_TOO_SHORT' },
        { in: 'body', field: '/countryOfResidence', code: 'E_PATTERN' },
        { in: 'body', field: '/phoneNumber', code: 'E_TYPE' },
      ]),
    );
  });

  it.each([
    ['an empty name', { firstName: '' }, '/firstName', 'E_TOO_SHORT'],
    ['a country too short for its pattern too', { countryOfResidence: 'gb' }, '/countryOfResidence', 'E_TOO_SHORT'],
    ['a name too long, with a control character too', { lastName: `L${'\u0007'.repeat(100)}` }, '/lastName', 'E_TOO_LONG'],
    ['a phone number of the wrong type', { phoneNumber: 12 }, '/phoneNumber', 'E_TYPE'],
  ])('gives a field one problem, its most basic: %s', async (_, overrides, field, code) => {
    const error = await apiError(api.createCustomer({ ...customerRequest(), ...overrides } as never));
    expect(error.details).toEqual([{ in: 'body', field, code, message: expect.any(String) }]);
  });

  it('refuses a body that is not an object (E_TYPE at the root), and a missing body (E_REQUIRED at the root)', async () => {
    const response = await rawRequest({
      method: 'POST',
      path: '/v1/partner/customers',
      headers: { 'content-type': 'application/json', 'idempotency-key': newIdempotencyKey() },
      body: '[1,2]',
    });
    expect([response.status, response.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(response.details).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_TYPE' }));
    // No body, and so no Content-Type: the body the operation requires is missing.
    const empty = await rawRequest({ method: 'POST', path: '/v1/partner/customers', headers: { 'idempotency-key': newIdempotencyKey() } });
    expect([empty.status, empty.errorCode]).toEqual([400, 'E_VALIDATION_FAILED']);
    expect(empty.details).toContainEqual(expect.objectContaining({ in: 'body', field: '', code: 'E_REQUIRED' }));
  });

  it('refuses names with control or bidirectional-text characters, which could disguise them on a filed document', async () => {
    for (const firstName of ['\u202eAda', 'Ada\u0007', 'A\u2066da\u2069', 'Ada\u200f']) {
      const error = await apiError(api.createCustomer({ ...customerRequest(), firstName }));
      expect([error.status, error.code], JSON.stringify(firstName)).toEqual([400, 'E_VALIDATION_FAILED']);
      expect(error.details).toContainEqual(expect.objectContaining({ in: 'body', field: '/firstName', code: 'E_PATTERN' }));
    }
    // Letters of any script, and the joiners some of them need, stay welcome, and are kept as sent.
    const { payload: welcome } = await api.createCustomer({ ...customerRequest(), firstName: 'Zoë', lastName: 'مهر\u200cآرا' });
    expect([welcome.firstName, welcome.lastName]).toEqual(['Zoë', 'مهر\u200cآرا']);
  });

  it.each(['ZZZ', 'XXX'])('refuses a country that is not one of listCountries (%s): E_COUNTRY_UNKNOWN, the only detail', async (countryOfResidence) => {
    const error = await apiError(api.createCustomer({ ...customerRequest(), countryOfResidence }));
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ in: 'body', field: '/countryOfResidence', code: 'E_COUNTRY_UNKNOWN', message: expect.any(String) }]);
  });

  it('refuses a property the contract does not define (E_UNKNOWN_FIELD), the only detail', async () => {
    const error = await apiError(api.createCustomer({ ...customerRequest(), nickname: 'Ada' } as never));
    expect(error.details).toEqual([{ in: 'body', field: '/nickname', code: 'E_UNKNOWN_FIELD', message: expect.any(String) }]);
  });
});

describe('getCustomer', () => {
  it('returns the customer with created: false', async () => {
    const customer = await newCustomer();
    const { payload } = await api.getCustomer({ customerId: customer.serviceCustomerId });
    expect(payload).toEqual({ ...customer, created: false });
  });

  it('answers 404 E_NOT_FOUND for an id no one has', async () => {
    const error = await apiError(api.getCustomer({ customerId: unknownId('cus') }));
    expect([error.status, error.code]).toEqual([404, 'E_NOT_FOUND']);
  });

  it('refuses an id that is not a customer id (400 on the path parameter)', async () => {
    const error = await apiError(api.getCustomer({ customerId: 'com_5kHx9QaZ2mTw6RcN8vLp3JyD' }));
    expect(error.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ in: 'path', field: '/customerId' }));
    // Not an id at all: one detail, the most basic of the parameter's problems (too short, before its pattern).
    const malformed = await apiError(api.getCustomer({ customerId: 'nope' }));
    expect(malformed.status).toBe(400);
    expect(malformed.details).toEqual([{ in: 'path', field: '/customerId', code: 'E_TOO_SHORT', message: expect.any(String) }]);
  });
});

describe('listCustomers', () => {
  it('lists newest first across pages', async () => {
    const created: Customer[] = [];
    for (let i = 0; i < 5; i++) created.push(await newCustomer());
    // The five newest are ours: three pages of two hold them, in reverse order of creation.
    const listed: Customer[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const { payload } = await api.listCustomers({ limit: 2, cursor });
      // Full pages while there are more, as every list pages.
      if (payload.hasMore) expect(payload.data).toHaveLength(2);
      else expect(payload.data.length).toBeLessThanOrEqual(2);
      listed.push(...payload.data);
      if (!payload.hasMore) break;
      cursor = payload.nextCursor ?? undefined;
      expect(cursor).toBeDefined();
    }
    const ours = new Set(created.map((customer) => customer.serviceCustomerId));
    expect(listed.slice(0, 5).map((customer) => customer.serviceCustomerId)).toEqual(
      created.map((customer) => customer.serviceCustomerId).reverse(),
    );
    expect(listed.filter((customer) => ours.has(customer.serviceCustomerId))).toHaveLength(5);
  });

  it('is walked to the end: every customer once, newest first', async () => {
    const newest = await newCustomer();
    const listed: Customer[] = [];
    let cursor: string | undefined;
    for (;;) {
      const { payload } = await api.listCustomers({ limit: 100, cursor });
      listed.push(...payload.data);
      if (!payload.hasMore) {
        expect(payload.nextCursor).toBeNull();
        break;
      }
      cursor = payload.nextCursor ?? undefined;
      expect(cursor).toBeDefined();
    }
    expect(listed[0]?.serviceCustomerId).toBe(newest.serviceCustomerId);
    expect(new Set(listed.map((customer) => customer.serviceCustomerId)).size).toBe(listed.length);
    const times = listed.map((customer) => Date.parse(customer.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(listed.every((customer) => customer.created === false)).toBe(true);
  });

  it('goes on after its cursor when customers are created meanwhile: none repeated, none skipped', async () => {
    const older = [await newCustomer(), await newCustomer(), await newCustomer()];
    const first = (await api.listCustomers({ limit: 2 })).payload;
    const created = await newCustomer();
    const second = (await api.listCustomers({ limit: 2, cursor: first.nextCursor ?? undefined })).payload;
    // The newest first: the three made above, then whatever this partner had before them.
    const seen = [...first.data, ...second.data].map((customer) => customer.serviceCustomerId);
    expect(seen.slice(0, 3)).toEqual(older.map((customer) => customer.serviceCustomerId).reverse());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).not.toContain(created.serviceCustomerId);
  });

  it('filters by email, case-insensitively', async () => {
    const customer = await newCustomer();
    const { payload } = await api.listCustomers({ email: customer.email.toUpperCase() });
    expect(payload.data.map((item) => item.serviceCustomerId)).toEqual([customer.serviceCustomerId]);
    expect(payload.hasMore).toBe(false);
  });

  it('refuses a cursor used with other filters, and a forged one (E_CURSOR_INVALID)', async () => {
    await newCustomer();
    await newCustomer();
    const { payload } = await api.listCustomers({ limit: 1 });
    expect(payload.nextCursor).toEqual(expect.any(String));
    const otherFilters = await apiError(
      api.listCustomers({ limit: 1, email: exampleValue<{ email: string }>('CustomerCreateRequest').email, cursor: payload.nextCursor ?? '' }),
    );
    expect(otherFilters.details).toContainEqual(expect.objectContaining({ in: 'query', field: '/cursor', code: 'E_CURSOR_INVALID' }));
    const issued = payload.nextCursor ?? '';
    const middle = Math.floor(issued.length / 2);
    const forgeries = [
      `${issued.slice(0, middle)}${issued[middle] === 'A' ? 'B' : 'A'}${issued.slice(middle + 1)}`,
      // One character more, or less: never issued, whatever a lenient base64 decoder makes of it.
      `${issued}A`,
      issued.slice(0, -1),
    ];
    for (const cursor of forgeries) {
      const forged = await apiError(api.listCustomers({ cursor }));
      expect(forged.details, cursor).toContainEqual(expect.objectContaining({ field: '/cursor', code: 'E_CURSOR_INVALID' }));
    }
  });

  it('refuses a limit out of range and an email that is not one', async () => {
    const response = await rawRequest({ method: 'GET', path: '/v1/partner/customers?limit=abc&email=nobody' });
    expect(response.status).toBe(400);
    expect(response.errorCode).toBe('E_VALIDATION_FAILED');
    expect(response.details.map((detail) => detail.field)).toEqual(expect.arrayContaining(['/limit', '/email']));
    const tooMany = await apiError(api.listCustomers({ limit: 500 }));
    expect(tooMany.details).toEqual([{ in: 'query', field: '/limit', code: 'E_OUT_OF_RANGE', message: expect.any(String) }]);
  });
});
