/**
 * The features of the mock, assembled on a store: the contract it serves, the handlers, the formation timeline,
 * the webhook outbox and dispatcher, the request journal, faults and settings, the partner portal. What the three
 * channels (server.ts) and the admin API use; `stopWork` stops the background work before the store closes.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { loadContract, maxItemsOf, type ContractDocument } from '../../contract-model/document.ts';
import { listOperations, listWebhooks, type ContractOperation } from '../../contract-model/operations.ts';
import { newAdminToken, reachesThisMachineOnly, type AdminToken } from '../admin/admin-guard.ts';
import type { AdminServices } from '../admin/admin-handlers.ts';
import { createSettingsRegistry, type SettingsRegistry } from '../admin/settings.ts';
import { createKeyChecker, type KeyChecker } from '../auth/api-keys.ts';
import { companyHandlers } from '../companies/company-handlers.ts';
import { companySummariesOf } from '../companies/company-views.ts';
import { createChangeFeed } from '../changes/change-feed.ts';
import { ConfigError, type MockConfig } from '../config/config.ts';
import { customerHandlers } from '../customers/customer-handlers.ts';
import { createDocumentFactory } from '../documents/document-factory.ts';
import { documentHandlers } from '../documents/document-handlers.ts';
import { createDownloadUrlSigner } from '../documents/signed-url.ts';
import { createFaultRegistry, type FaultRegistry } from '../faults/faults.ts';
import { createFormationEngine } from '../formation/formation-engine.ts';
import { sandboxHandlers } from '../formation/sandbox-handlers.ts';
import { idempotencyRecords } from '../idempotency/idempotency-records.ts';
import { createEntryIds } from '../journal/entry-ids.ts';
import { createJournalFeed } from '../journal/journal-feed.ts';
import { createRequestJournal, type RequestJournal } from '../journal/request-journal.ts';
import { createCursorCodec } from '../pagination/cursor.ts';
import type { Handlers } from '../pipeline/handler.ts';
import { referenceHandlers } from '../reference/reference-handlers.ts';
import { isShared } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { createWebhookDispatcher } from '../webhooks/dispatcher.ts';
import { createBodyBudget, type BodyBudget } from '../pipeline/body-budget.ts';
import { allowedTargets } from '../webhooks/allowed-targets.ts';
import { createWebhookEndpointPortal } from '../webhooks/endpoints/endpoint-portal.ts';
import { createEventPortal } from '../webhooks/event-portal.ts';
import { createWebhookRelay } from '../webhooks/relay/webhook-relay.ts';
import { openRecording, RecordingRefused, type Recording } from '../proxy/recording.ts';
import { openTrafficRecording, TrafficRecordingRefused, type TrafficRecording } from '../journal/traffic-recording.ts';
import { trafficHeaderNames, type TrafficHeaderNames, type TrafficSource } from '../journal/traffic-exchange.ts';
import { maskUrl } from '../../contract-model/credentials.ts';
import { contractFacts } from '../../generated/contract-facts.ts';
import { defaultOutboxOptions } from '../webhooks/outbox/outbox-types.ts';
import { webhookOutbox } from '../webhooks/outbox/outbox.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import { documentedAnswers } from '../../contract-model/documented-answers.ts';
import type { AnswersOf } from '../forced-answers/force-answer.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { schemaCompilerOf, type SchemaCompiler } from '../../contract-model/schema-compiler.ts';
import { compileRequestValidator, type RequestValidator } from '../pipeline/request-validator.ts';
import { resetStore } from './reset.ts';
import { secret } from './secrets.ts';

export interface Overrides {
  handlers?: Partial<Handlers>;
  /** The budget of body bytes, made by the caller (a test that watches what it holds); one of `--body-memory` otherwise. */
  bodyBudget?: BodyBudget;
  /** The contract to serve, already read (in process, where there may be no file to read); `--contract` otherwise. */
  contract?: ContractDocument;
  /** What delivers webhooks, in place of `fetch` to their endpoints (in process: the handlers a test registers). */
  deliver?: typeof fetch;
}

export interface Services {
  store: Store;
  contract: ContractDocument;
  operations: readonly ContractOperation[];
  /** The one Ajv set-up over the contract served. */
  compiler: SchemaCompiler;
  /**
   * The request validators, compiled once per operation, for every step that checks a request, and for the seed,
   * which checks its entries with them before it writes anything.
   */
  requestValidatorOf: (operationId: string) => RequestValidator | undefined;
  handlers: Handlers;
  /** Operations of the contract with no handler, answered from its examples (`--unhandled-operations examples`). */
  unhandled: string[];
  keys: KeyChecker;
  idempotency: ReturnType<typeof idempotencyRecords>;
  journal: RequestJournal;
  faults: FaultRegistry;
  settings: SettingsRegistry;
  webhookSecret: string;
  /** The token the admin routes require, given or made for a --public-url others reach; none otherwise. */
  adminToken: AdminToken | undefined;
  admin: Omit<AdminServices, 'adminContract' | 'adminDocs' | 'selfUrl' | 'seed'>;
  /** The answers each operation documents, for a forced answer (`Prefer`, or a fault armed). */
  documentedAnswers: AnswersOf;
  stopWork(): Promise<void>;
  /** What passes through the proxy, written as a seed (`--record`). */
  recording: Recording | undefined;
  /** The traffic served, written as a traffic document (`--record-traffic`). */
  traffic: TrafficRecording | undefined;
  /** The request body bytes the process holds at once, shared by both channels. */
  bodyBudget: BodyBudget;
}

/**
 * What a reload of the contract (server.ts) hands from the services it replaces to the new ones: what was set at
 * run time (faults armed, settings switched) and the recording under way, whose file is opened once.
 */
export type KeptAcrossReload = Pick<Services, 'faults' | 'settings' | 'recording' | 'traffic'>;

/** How often a process looks for work others stored, on a store several processes share. */
const pollMs = 250;

export async function createServices(config: MockConfig, logger: Logger, store: Store, overrides: Overrides, carried?: KeptAcrossReload): Promise<Services> {
  const contract = overrides.contract ?? (await loadContract(config.contractPath));
  const operations = listOperations(contract);
  const compiler = schemaCompilerOf(contract);
  const requestValidatorOf = perOperation(operations, (op) => compileRequestValidator(contract, op, compiler));
  // Before anything starts working: a path that cannot be recorded to refuses the start with nothing to stop.
  const recording = carried ? carried.recording : config.upstream?.record === undefined ? undefined : await openRecording({ path: config.upstream.record, upstream: config.upstream.url, contract, logger }).catch((error: unknown) => {
    throw error instanceof RecordingRefused ? new ConfigError(error.message) : error;
  });
  const trafficNames = trafficHeaderNames(operations);
  const trafficSource = trafficSourceOf(config, contract);
  const traffic = carried ? carried.traffic : await openTraffic(config, { source: trafficSource, names: trafficNames, logger });
  // Kept in the store, so that cursors and download URLs stay valid across a restart and on every replica.
  const key = async (name: string) => Buffer.from(await secret(store, name, () => randomBytes(32).toString('base64')), 'base64');
  const cursors = createCursorCodec(await key('cursor-key'));
  const entryIds = createEntryIds(await key('journal-id-key'));
  const signer = createDownloadUrlSigner({
    secret: await key('download-url-key'),
    contentPath: operationNamed(operations, 'downloadCompanyDocument').pathTemplate,
    ttlSeconds: Math.max(1, Math.round(config.downloadUrlTtlMs / 1000)),
  });
  const webhookSecret = config.webhookSecret ?? (await secret(store, 'webhook-secret', newWebhookSecret));
  // A --public-url others reach (a tunnel) would put the admin routes on the internet: without a token given, one is
  // made once and kept in the store, so that every replica and every restart asks for the same one.
  const adminToken: AdminToken | undefined =
    config.adminToken !== undefined
      ? { value: config.adminToken, made: false }
      : config.publicUrl !== undefined && !reachesThisMachineOnly(config.publicUrl)
        ? { value: await secret(store, 'admin-token', newAdminToken), made: true }
        : undefined;
  const poll = isShared(config.store) ? pollMs : undefined;
  const kept = config.webhookHistoryPerPartner;
  // The memory store's heap is all it has: it bounds what waits for a disabled endpoint. The others keep everything.
  const maxQueuedPerPartner = config.store.kind === 'memory' ? kept : defaultOutboxOptions.maxQueuedPerPartner;
  const outbox = webhookOutbox(store, {
    ...defaultOutboxOptions,
    attemptsKeptPerPartner: kept,
    eventsKeptPerPartner: kept,
    maxQueuedPerPartner,
    // Only the memory store drops, and it runs each body once: a drop is logged once, as it happened.
    onDropped: (event) => logger.error({ ...event, maxQueuedEvents: maxQueuedPerPartner }, "webhook event dropped: too many of its partner's events waiting for delivery"),
  });
  // The configuration checked the list; what delivers through it is made here, once.
  const allowed = config.webhookAllow === undefined ? undefined : allowedTargets(config.webhookAllow);
  const dispatcher = createWebhookDispatcher({
    store, outbox, endpointUrl: config.webhookUrl, secret: webhookSecret, retryDelaysMs: config.webhookRetryDelaysMs, ...(overrides.deliver ? { fetch: overrides.deliver } : allowed ? { fetch: allowed.fetch } : {}),
    attemptTimeoutMs: config.webhookTimeoutMs, logger: logger.child({ component: 'webhooks' }), ...(poll === undefined ? {} : { pollMs: poll }),
  });
  const formation = createFormationEngine({
    store, storeEvents: outbox.storeEvents, destinations: dispatcher, documents: createDocumentFactory(config.environment),
    timeline: { mode: config.formationTimeline, stepDelayMs: config.formationStepDelayMs }, now: () => new Date(),
    logger: logger.child({ component: 'formation' }), ...(poll === undefined ? {} : { pollMs: poll }),
  });
  const stopWork = () => Promise.all([formation.close(), dispatcher.close(), recording?.flush(), traffic?.flush()]).then(() => undefined);
  const now = () => new Date();
  const handlers: Handlers = {
    ...customerHandlers({ store, cursors, now, companiesOf: companySummariesOf, maxCompaniesShown: maxItemsOf(contract, 'Customer', 'companies') }),
    ...companyHandlers({ store, cursors, startFormation: formation.start, now }),
    ...documentHandlers({ store, cursors, signer }),
    ...referenceHandlers({ cursors }),
    ...sandboxHandlers({ formation }),
    ...overrides.handlers,
  };
  const unhandled = operations.map((op) => op.operationId).filter((id) => !(id in handlers));
  if (unhandled.length > 0 && config.unhandledOperations === 'refuse') {
    await stopWork();
    throw new ConfigError(`the contract has operations this mock has no handler for: ${unhandled.join(', ')}. Pass --unhandled-operations examples to answer them from the contract's examples.`);
  }
  const idempotency = idempotencyRecords({ ttlMs: config.idempotencyTtlMs, maxPerPartner: config.idempotencyMaxRecords });
  const journal = createRequestJournal({ store, maxBytes: config.journalMaxBytes, logger });
  const faults = carried?.faults ?? createFaultRegistry();
  const answersOf = perOperation(operations, (operation) => documentedAnswers(contract, operation));
  const settings = carried?.settings ?? createSettingsRegistry({ validateResponses: config.validateResponses });
  const changes = createChangeFeed(store);
  // Faults and settings live in this process (carried across a reload): their changes reach these services' streams
  // until the services stop.
  const unfollow = [
    faults.onChange((partnerId) => changes.changed({ topic: 'faults', ...(partnerId === undefined ? {} : { partnerId }) })),
    settings.onChange((partnerId) => changes.changed({ topic: 'settings', ...(partnerId === undefined ? {} : { partnerId }) })),
  ];
  const admin = {
    config, store, journal, dispatcher, faults, settings, cursors, entryIds,
    journalFeed: createJournalFeed({ journal, ...(poll === undefined ? {} : { pollMs: poll }), logger }),
    changes,
    endpoints: createWebhookEndpointPortal({ store, outbox, dispatcher, eventTypes: [...listWebhooks(contract).keys()], ...(allowed ? { allowed } : {}) }),
    events: createEventPortal({ store, outbox, dispatcher, cursors, defaultEndpoint: config.webhookUrl !== undefined }),
    relay: createWebhookRelay({ store, outbox, notify: dispatcher.notify, contract, logger: logger.child({ component: 'webhook-relay' }) }),
    receiverGrader: { contract, ...(allowed ? { allowed, fetch: allowed.fetch } : {}) },
    apiOperationIds: operations.map((op) => op.operationId),
    traffic: { names: trafficNames, source: trafficSource },
    documentedAnswers: answersOf,
    reset: (partnerId?: string) => resetStore({ store, outbox, idempotency }, partnerId),
  };
  const stopAll = async () => {
    for (const stop of unfollow) stop();
    await stopWork();
  };
  return { recording, traffic, bodyBudget: overrides.bodyBudget ?? createBodyBudget(config.bodyMemoryBytes), store, contract, operations, compiler, requestValidatorOf, handlers, unhandled, keys: createKeyChecker(config.environment, config.apiKeys), idempotency, journal, faults, settings, webhookSecret, adminToken, admin, documentedAnswers: answersOf, stopWork: stopAll };
}

/** Who records traffic here, and against which contract: what every traffic document of this mock says of itself. */
function trafficSourceOf(config: MockConfig, contract: ContractDocument): Omit<TrafficSource, 'from'> {
  return {
    mode: config.upstream ? 'proxy' : 'mock',
    contractVersion: String((contract.info as { version?: unknown } | undefined)?.version ?? 'unknown'),
    upstream: config.upstream ? maskUrl(config.upstream.url) : null,
  };
}

/** The recording of `--record-traffic`, opened before anything is served: a file that cannot be written refuses the start. */
async function openTraffic(config: MockConfig, options: { source: Omit<TrafficSource, 'from'>; names: TrafficHeaderNames; logger: Logger }): Promise<TrafficRecording | undefined> {
  if (config.recordTraffic === undefined) return undefined;
  return openTrafficRecording({ path: config.recordTraffic, ...options, maxBodyBytes: contractFacts.limits.requestBodyMaxBytes }).catch((error: unknown) => {
    throw error instanceof TrafficRecordingRefused ? new ConfigError(error.message) : error;
  });
}

function operationNamed(operations: readonly ContractOperation[], operationId: string): ContractOperation {
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new ConfigError(`the contract has no ${operationId} operation, which the mock needs`);
  return operation;
}
