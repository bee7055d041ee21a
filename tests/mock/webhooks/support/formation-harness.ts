/**
 * The webhook pipeline as the mock assembles it (mock/app/services.ts), on a memory store: the outbox, the
 * dispatcher and the formation engine on a manual timeline. Events come only from formation steps, as in
 * production: a test creates companies and moves their formations on, and watches what the dispatcher delivers.
 */
import { pino, type Logger } from 'pino';
import type { Company, FormationFailureReason } from '../../../../generated/openapi.js';
import { getCompany } from '../../../../mock/companies/company-records.ts';
import { createDocumentFactory } from '../../../../mock/documents/document-factory.ts';
import { createFormationEngine, type FormationEngine, type SimulationTarget } from '../../../../mock/formation/formation-engine.ts';
import { newId } from '../../../../mock/ids.ts';
import { openMemoryStore } from '../../../../mock/store/memory/memory-store.ts';
import type { Store } from '../../../../mock/store/store.ts';
import { createWebhookDispatcher, type DispatcherLogger, type WebhookDispatcher } from '../../../../mock/webhooks/dispatcher.ts';
import type { WebhookEventType } from '../../../../mock/webhooks/event-payloads.ts';
import { defaultOutboxOptions, type OutboxOptions, type StoredEvent } from '../../../../mock/webhooks/outbox/outbox-types.ts';
import { webhookOutbox, type WebhookOutbox } from '../../../../mock/webhooks/outbox/outbox.ts';
import { example } from '../../support/http-fixtures.ts';
import { captureLogger, newSecret, roomyTimeoutMs } from './fixtures.ts';

/** The events of an LLC formation run to its end, in the order they are stored and must be delivered. */
export const llcFormationEvents: readonly WebhookEventType[] = [
  'company.formation.submitted',
  'company.formation.completed',
  'company.ein.issued',
  'document.ready',
  'document.ready',
  'document.ready',
];

export const defaultPartnerId = 'partner_webhooks';

/** A company the harness created: which partner it belongs to, and its id (the ordering key of its events). */
export interface CompanyRef {
  partnerId: string;
  id: string;
}

export interface HarnessOptions {
  /** The default endpoint (`--webhook-url`); none: events are only kept, journaled as `no-endpoint`. */
  endpointUrl?: string;
  secret?: string;
  retryDelaysMs?: readonly number[];
  attemptTimeoutMs?: number;
  logger?: DispatcherLogger;
  maxConcurrency?: number;
  /** The dispatcher's clock (signatures, journal lines); formation keeps the real one. */
  now?: () => Date;
  fetch?: typeof fetch;
  outbox?: Partial<OutboxOptions>;
  /**
   * Wraps the outbox's `storeEvents` as the formation engine gets it: for a test of what a step does when its
   * events cannot be stored (a store error), never to add events of its own.
   */
  wrapStoreEvents?: (storeEvents: StoreEvents) => StoreEvents;
  /** The store under it all: a memory store by default. */
  store?: Store;
}

export type StoreEvents = WebhookOutbox['storeEvents'];

export interface FormationHarness {
  store: Store;
  outbox: WebhookOutbox;
  dispatcher: WebhookDispatcher;
  formation: FormationEngine;
  secret: string;
  /** What the formation engine logged (pino JSON lines, warn and above). */
  formationLog: string[];
  /** Stores a new LLC company, PENDING, as createCompany does: the company and its first step in one write. */
  newCompany(partnerId?: string): Promise<CompanyRef>;
  /** Moves a formation on as simulateCompanyFormation does: NEXT is one status step, one event (from PENDING). */
  simulate(company: CompanyRef, target: SimulationTarget, reason?: FormationFailureReason): Promise<Company>;
  /** The company as stored now. */
  companyOf(company: CompanyRef): Promise<Company | undefined>;
  /** The events the outbox keeps for a company, oldest (first to deliver) first, with the exact bytes stored. */
  eventsOf(company: CompanyRef): Promise<StoredEvent[]>;
  /** Formation, then the dispatcher, then the store: nothing is left to write to a closed store. */
  close(): Promise<void>;
}

export function formationHarness(options: HarnessOptions = {}): FormationHarness {
  const store = options.store ?? openMemoryStore({ freeze: true });
  const outbox = webhookOutbox(store, { ...defaultOutboxOptions, ...options.outbox });
  const secret = options.secret ?? newSecret();
  const dispatcher = createWebhookDispatcher({
    store,
    outbox,
    ...(options.endpointUrl === undefined ? {} : { endpointUrl: options.endpointUrl }),
    secret,
    retryDelaysMs: options.retryDelaysMs ?? [],
    attemptTimeoutMs: options.attemptTimeoutMs ?? roomyTimeoutMs,
    logger: options.logger ?? captureLogger(),
    ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const { logger, lines: formationLog } = linesLogger();
  const formation = createFormationEngine({
    store,
    storeEvents: options.wrapStoreEvents?.(outbox.storeEvents) ?? outbox.storeEvents,
    destinations: dispatcher,
    documents: createDocumentFactory('sandbox'),
    // Manual: a step happens only when a test simulates it, so what is sent and when is up to the test.
    timeline: { mode: 'manual', stepDelayMs: 0 },
    now: () => new Date(),
    logger,
  });

  return {
    store,
    outbox,
    dispatcher,
    formation,
    secret,
    formationLog,
    async newCompany(partnerId = defaultPartnerId) {
      const company = newLlcCompany(new Date());
      await store.write(function (tx) {
        formation.start(tx, partnerId, company);
      });
      return { partnerId, id: company.serviceCompanyId };
    },
    simulate: (company, target, reason) => formation.simulate(company.partnerId, company.id, target, reason),
    companyOf: (company) => store.read((tx) => getCompany(tx, company.partnerId, company.id)),
    async eventsOf(company) {
      const page = await outbox.events(company.partnerId, { limit: 1_000 }, Date.now());
      return page.items.filter((event) => event.orderingKey === company.id).reverse();
    },
    async close() {
      await formation.close();
      await dispatcher.close();
      await store.close();
    },
  };
}

/** An accepted LLC as createCompany stores it: the contract's example with ids and times of its own. */
function newLlcCompany(at: Date): Company {
  const { payload } = example<{ payload: Company }>('LlcCompanyAccepted');
  const timestamp = at.toISOString();
  return { ...payload, serviceCompanyId: newId('com'), serviceCustomerId: newId('cus'), status: 'PENDING', createdAt: timestamp, updatedAt: timestamp };
}

/** A pino logger (what the formation engine takes) that keeps its lines instead of printing them. */
function linesLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}
