/**
 * What the scenarios build on: clients wired to the validating transport, request bodies taken from the
 * contract's own examples (made unique per run, so a long-lived sandbox never answers "already exists"), the
 * formation helpers, the mock's fault injection (self-started mock only) and the webhook receiver.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  CCorpFormationRequest,
  Company,
  Customer,
  CustomerCreateRequest,
  LlcFormationRequest,
  SimulateFormationRequest,
} from '../../generated/openapi.js';
import {
  createPartnerClient,
  PartnerApiError,
  type PartnerClient,
  type RetryOptions,
} from '../../client/index.ts';
import { exampleValue } from './contract.ts';
import { randomAlphanumerics } from './fresh-ids.ts';
import { armMockFault, clearMockFaults, type FaultRequest } from './mock-admin.ts';
import { target, validatingFetch } from './observe.ts';

export { target };

let counter = 0;
/** Unique within the run, and the run id keeps it unique across runs. */
export function uniqueSuffix(): string {
  counter += 1;
  return `${target.runId}${counter.toString(36)}${randomBytes(2).toString('hex')}`;
}

export interface ClientOptions {
  apiKey?: string;
  retry?: RetryOptions;
  /**
   * Replaces the `Authorization` header after the client set it (`null` removes it): how the suite sends
   * well-formed requests with a missing, `Bearer`-prefixed or foreign key, which the client itself refuses to.
   */
  authorization?: string | null;
}

export function partnerClient(options: ClientOptions = {}): PartnerClient {
  const client = createPartnerClient({
    baseUrl: target.baseUrl,
    apiKey: options.apiKey ?? target.apiKey,
    fetch: validatingFetch,
    // Quick retries: the suite's own waits are what it measures, not the backoff.
    retry: { baseDelayMs: 50, maxDelayMs: 2_000, ...options.retry },
  });
  if (options.authorization !== undefined) {
    const authorization = options.authorization;
    // Registered after the client's own middleware, so it runs after it and has the last word.
    client.raw.use({
      onRequest({ request }) {
        if (authorization === null) request.headers.delete('Authorization');
        else request.headers.set('Authorization', authorization);
        return request;
      },
    });
  }
  return client;
}

/** The client used by most scenarios. */
export const api = partnerClient();

/** A client that gives up at the first answer, to see 429/5xx and in-flight 409s as they come. */
export const apiNoRetry = partnerClient({ retry: { maxAttempts: 1 } });

export function customerRequest(): CustomerCreateRequest {
  const body = exampleValue<CustomerCreateRequest>('CustomerCreateRequest');
  const [local, domain] = body.email.split('@');
  return { ...body, email: `${local}+${uniqueSuffix()}@${domain}` };
}

export function llcRequest(serviceCustomerId: string): LlcFormationRequest {
  return { ...exampleValue<LlcFormationRequest>('LlcFormationRequest'), serviceCustomerId };
}

export function ccorpRequest(serviceCustomerId: string): CCorpFormationRequest {
  return { ...exampleValue<CCorpFormationRequest>('CCorpFormationRequest'), serviceCustomerId };
}

export function simulation(example: 'SimulateFormationNext' | 'SimulateFormationCompleted' | 'SimulateFormationFailed'): SimulateFormationRequest {
  return exampleValue<SimulateFormationRequest>(example);
}

export async function newCustomer(client: PartnerClient = api): Promise<Customer> {
  return (await client.createCustomer(customerRequest())).payload;
}

export async function newCompany(entityType: 'LLC' | 'CCorp', client: PartnerClient = api): Promise<Company> {
  const customer = await newCustomer(client);
  const body = entityType === 'LLC' ? llcRequest(customer.serviceCustomerId) : ccorpRequest(customer.serviceCustomerId);
  return (await client.createCompany(body)).payload;
}

/** A company driven to COMPLETED, with its EIN and documents (simulateCompanyFormation issues them before answering). */
export async function completedCompany(entityType: 'LLC' | 'CCorp', client: PartnerClient = api): Promise<Company> {
  const company = await newCompany(entityType, client);
  return (await client.simulateCompanyFormation({ companyId: company.serviceCompanyId }, simulation('SimulateFormationCompleted'))).payload;
}

/** Identifiers of the right shape that no partner has. */
export function unknownId(prefix: 'cus' | 'com' | 'doc'): string {
  return `${prefix}_${randomAlphanumerics(24)}`;
}

export function newIdempotencyKey(): string {
  return `ct-${target.runId}-${randomUUID()}`;
}

/** The error a call rejected with, for `expect`; fails when it did not reject with the API's error envelope. */
export async function apiError(call: Promise<unknown>): Promise<PartnerApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof PartnerApiError) return error;
    throw error;
  }
  throw new Error('The call succeeded; an error response was expected.');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` returns a value, or fails with what `describe` says was last seen. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; describe: () => string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Gave up after ${options.timeoutMs} ms: ${options.describe()}`);
    await sleep(options.intervalMs ?? 50);
  }
}

// ---- The mock's fault injection: only on the mock the suite started (target.mockAdmin). ----

export async function armFault(fault: FaultRequest): Promise<void> {
  if (!target.mockAdmin) throw new Error('Faults are only available on the mock the suite started.');
  await armMockFault(target.baseUrl, fault);
}

export async function clearFaults(): Promise<void> {
  if (target.mockAdmin) await clearMockFaults(target.baseUrl);
}
