/** Request bodies built from the contract's own examples, and the calls most HTTP tests start with. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type {
  CCorpFormationRequest,
  Company,
  Customer,
  CustomerCreateRequest,
  LlcFormationRequest,
} from '../../../generated/openapi.js';
import type { CallResult, TestMock } from './mock-harness.ts';

export const contractPath = new URL('../../../generated/openapi.json', import.meta.url);

/** The bundled contract, parsed once per test file. */
export const contract: any = JSON.parse(readFileSync(contractPath, 'utf8'));

/** A deep copy of one `components.examples.<name>.value`, free to modify. */
export function example<T>(name: string): T {
  const found = contract.components.examples[name];
  if (!found) throw new Error(`the contract has no example ${name}`);
  return structuredClone(found.value) as T;
}

let sequence = 0;

/** Unique per call: customers are deduplicated by email, so each test gets its own customer. */
export function uniqueEmail(label = 'customer'): string {
  sequence += 1;
  return `${label}.${sequence}.${randomUUID().slice(0, 8)}@example.com`;
}

export const newIdempotencyKey = (): string => randomUUID();

export function customerBody(overrides: Partial<CustomerCreateRequest> = {}): CustomerCreateRequest {
  return { ...example<CustomerCreateRequest>('CustomerCreateRequest'), email: uniqueEmail(), ...overrides };
}

export function llcBody(serviceCustomerId: string, overrides: Partial<LlcFormationRequest> = {}): LlcFormationRequest {
  return { ...example<LlcFormationRequest>('LlcFormationRequest'), serviceCustomerId, ...overrides };
}

export function ccorpBody(serviceCustomerId: string, overrides: Partial<CCorpFormationRequest> = {}): CCorpFormationRequest {
  return { ...example<CCorpFormationRequest>('CCorpFormationRequest'), serviceCustomerId, ...overrides };
}

/** Creates a customer and returns it; fails the test on anything but 200. */
export async function createCustomer(mock: TestMock, options: { key?: string; body?: CustomerCreateRequest } = {}): Promise<Customer> {
  const response = await mock.call('/v1/partner/customers', { key: options.key, body: options.body ?? customerBody(), idempotencyKey: newIdempotencyKey() });
  expect(response.status, JSON.stringify(response.json)).toBe(200);
  return response.json.payload as Customer;
}

/** Submits a formation and returns the accepted company; fails the test on anything but 202. */
export async function createCompany(mock: TestMock, body: LlcFormationRequest | CCorpFormationRequest, key?: string): Promise<Company> {
  const response = await mock.call('/v1/partner/companies', { key, body, idempotencyKey: newIdempotencyKey() });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
  return response.json.payload as Company;
}

export async function simulate(mock: TestMock, companyId: string, body: Record<string, unknown>, key?: string): Promise<CallResult> {
  return mock.call(`/v1/partner/sandbox/companies/${companyId}/simulate-formation`, { key, body });
}

/** The `error` of a validation failure, after checking the status and code. */
export function validationDetails(response: CallResult): { in: string; field: string; code: string; message: string }[] {
  expect(response.status, JSON.stringify(response.json)).toBe(400);
  expect(response.json.payload).toBeNull();
  expect(response.json.error.code).toBe('E_VALIDATION_FAILED');
  return response.json.error.details;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value other than undefined/false; for conditions with no event to await. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/** The component schema a webhook's request body refers to, by event type (`company.formation.submitted`). */
export function webhookSchemaName(eventType: string): string {
  const ref: unknown = contract.webhooks?.[eventType]?.post?.requestBody?.content?.['application/json']?.schema?.$ref;
  if (typeof ref !== 'string') throw new Error(`the contract declares no webhook ${eventType}`);
  return ref.replace('#/components/schemas/', '');
}
