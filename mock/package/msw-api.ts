/**
 * The public API of the mock's Mock Service Worker entry (`@partner-formation/mock/msw`): what a frontend's tests use
 * to run the mock inside them. Types only, but for the error class, each from the admin API's generated types: what a
 * test sends and reads in process is what the admin routes take and answer over HTTP (mock/admin/openapi/).
 */
import type { HttpHandler } from 'msw';
import type { Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/mock-admin/openapi.js';

type AdminSchemas = components['schemas'];
export type SeedDocument = AdminSchemas['SeedDocument'];
export type SeedReport = AdminSchemas['SeedReport'];
export type FaultArmRequest = AdminSchemas['FaultArmRequest'];
export type Fault = AdminSchemas['Fault'];
export type FaultList = AdminSchemas['FaultList'];
export type ResetReport = AdminSchemas['ResetReport'];
export type RequestJournalPage = AdminSchemas['RequestJournalPage'];
export type RequestJournalEntry = AdminSchemas['RequestJournalEntry'];
export type RequestJournalExchange = AdminSchemas['RequestJournalExchange'];
export type RequestsQuery = NonNullable<paths['/_mock/requests']['get']['parameters']['query']>;
export type AdminPaths = paths;

export interface MockOptions {
  /** The origin the app calls the API at; by default the contract's first server (the sandbox's). */
  baseUrl?: string;
  /**
   * The mock's options by flag name, as `npx @partner-formation/mock --help` lists them, e.g.
   * `{ 'formation-timeline': 'manual', 'webhook-retry-delays': '10ms,10ms' }`: checked as the flags are.
   */
  options?: Readonly<Record<string, string>>;
}

/**
 * Receives a webhook the mock delivers, as a receiver would (a signed `POST`): its answer is the receiver's (any 2xx
 * accepts; another status, or a throw, is a failed attempt, retried on the mock's schedule). Returning nothing accepts.
 */
export type WebhookHandler = (delivery: Request) => Response | void | Promise<Response | void>;

export interface PartnerFormationMock {
  readonly baseUrl: string;
  /** The handlers to give `setupServer` (msw/node) or `setupWorker` (msw/browser): every request to `baseUrl`. */
  readonly handlers: HttpHandler[];
  /** Answers a request as the handlers do, without Mock Service Worker. */
  handle(request: Request): Promise<Response>;
  /** Forgets every partner's data and disarms their faults; with a key, that partner's only. */
  reset(apiKey?: string): Promise<ResetReport>;
  /** Loads customers and companies through the API, all or nothing (as `POST /_mock/seed`). */
  seed(document: SeedDocument, apiKey?: string): Promise<SeedReport>;
  /**
   * Arms a fault: the next `count` calls of an operation answer a documented answer (a forced 409, a 503, as a
   * `Prefer` header asks for one), or wait first. Answers with every fault armed now.
   */
  arm(fault: FaultArmRequest, apiKey?: string): Promise<FaultList>;
  /** The request journal, newest page first: what the app sent and what it was answered. */
  requests(query?: RequestsQuery, apiKey?: string): Promise<RequestJournalPage>;
  /** One entry of the journal whole: the request as the app sent it (headers, body) and the answer it got. */
  exchange(entryId: string, apiKey?: string): Promise<RequestJournalExchange>;
  /** Registers a receiver of the webhooks delivered from now on; returns what unregisters it. */
  onWebhook(handler: WebhookHandler): () => void;
  /** The whole admin API, typed from its contract (openapi-fetch), answered in process. */
  readonly admin: Client<AdminPaths>;
  /** Stops the mock's work (the formation timeline, deliveries): call it once its tests are done. */
  close(): Promise<void>;
}

export type CreateMock = (options?: MockOptions) => Promise<PartnerFormationMock>;

/** An admin call the mock refused, with the admin API's error code (`E_VALIDATION_FAILED`, …) and its details. */
export class MockAdminError extends Error {
  override name = 'MockAdminError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: readonly AdminSchemas['FieldError'][] = [],
  ) {
    super(message);
  }
}
