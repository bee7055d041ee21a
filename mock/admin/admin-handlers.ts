/**
 * The admin API's handlers, one per operation of its contract (mock/admin/openapi/), typed from the generated
 * `generated/mock-admin/openapi.d.ts`: an admin operation added to the contract without a handler fails to compile.
 * With a partner's key, a handler acts for that partner only; without one, for every partner.
 */
import type { ContractDocument } from '../../contract-model/document.ts';
import type { ChangeFeed } from '../changes/change-feed.ts';
import { changeHandlers } from '../changes/change-handlers.ts';
import type { MockConfig } from '../config/config.ts';
import { faultHandlers } from '../faults/fault-handlers.ts';
import type { FaultRegistry } from '../faults/faults.ts';
import { ApiError } from '../http/api-error.ts';
import { journalHandlers } from '../journal/journal-handlers.ts';
import { trafficExportHandlers } from '../journal/traffic-export.ts';
import type { TrafficHeaderNames, TrafficSource } from '../journal/traffic-exchange.ts';
import type { EntryIds } from '../journal/entry-ids.ts';
import type { JournalFeed } from '../journal/journal-feed.ts';
import type { RequestJournal } from '../journal/request-journal.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { isOutage } from '../pipeline/failure.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import { naicsSource } from '../reference/index.ts';
import { SeedError, type SeedReport } from '../seed/seed.ts';
import { maskStoreUrl } from '../store/open-store.ts';
import { StoreDamaged } from '../store/store-error.ts';
import type { Store } from '../store/store.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import type { WebhookEndpointPortal } from '../webhooks/endpoints/endpoint-portal.ts';
import { maskEndpointUrl } from '../webhooks/endpoint-url.ts';
import type { EventPortal } from '../webhooks/event-portal.ts';
import { webhookHandlers } from '../webhooks/webhook-handlers.ts';
import type { WebhookRelay } from '../webhooks/relay/webhook-relay.ts';
import { receiverGradeHandlers, type ReceiverGraderServices } from '../receiver-grader/grade-handlers.ts';
import type { SettingsRegistry } from './settings.ts';
import type { AnswersOf } from '../forced-answers/force-answer.ts';

export type { AdminHandlers } from '../pipeline/handler.ts';

export interface AdminServices {
  config: MockConfig;
  store: Store;
  journal: RequestJournal;
  dispatcher: WebhookDispatcher;
  faults: FaultRegistry;
  settings: SettingsRegistry;
  /** Encodes the journal's cursors, so that a partner's cursor says nothing of other partners' requests. */
  cursors: CursorCodec;
  /** The ids of journal entries, which say nothing of other partners' requests either. */
  entryIds: EntryIds;
  /** The journal followed as it grows, for the request streams. */
  journalFeed: JournalFeed;
  /** What changes, for the change streams. */
  changes: ChangeFeed;
  endpoints: WebhookEndpointPortal;
  events: EventPortal;
  /** Receives the events a real sandbox sends to `/_mock/relay/{endpointId}`. */
  relay: WebhookRelay;
  /** What the receiver grader sends with: the contract served, and where the mock may deliver. */
  receiverGrader: ReceiverGraderServices;
  /** The operationIds of the API contract served: what a fault may name. */
  apiOperationIds: readonly string[];
  /** What a traffic document of this mock keeps of headers, and says of itself (`exportRequests`). */
  traffic: { names: TrafficHeaderNames; source: Omit<TrafficSource, 'from'> };
  /** The answers each operation documents: what a fault may answer. */
  documentedAnswers: AnswersOf;
  /** Where this process answers: the admin API's own URLs. */
  selfUrl: () => string;
  /** Applies a seed document (seed/seed.ts) through the API where this process answers, not at --public-url (which may be a proxy). */
  seed: (document: unknown, defaultApiKey?: string) => Promise<SeedReport>;
  /** Empties the store, or one partner's records. */
  reset: (partnerId?: string) => Promise<void>;
  adminContract: ContractDocument;
  adminDocs: () => Promise<Buffer>;
}

export function createAdminHandlers(services: AdminServices): AdminHandlers {
  const { config, store, journal, dispatcher, faults, settings } = services;
  const adminContractJson = Buffer.from(JSON.stringify(services.adminContract));
  return {
    ...faultHandlers(faults, services.apiOperationIds, services.documentedAnswers),
    ...journalHandlers({ journal, feed: services.journalFeed, cursors: services.cursors, ids: services.entryIds }),
    ...changeHandlers(services.changes),
    ...trafficExportHandlers({ journal, ...services.traffic }),
    ...webhookHandlers(services),
    ...receiverGradeHandlers({ store, ...services.receiverGrader }),

    async getHealth() {
      // The read health makes anyway is the store's check: where it cannot be made, the API cannot serve either.
      const check = await dispatcher.isDisabled().then(
        (disabled) => ({ disabled, store: { kind: config.store.kind, status: 'ok' as const } }),
        (error: unknown) => {
          if (!isOutage(error)) throw error;
          return { disabled: null, store: { kind: config.store.kind, status: error instanceof StoreDamaged ? ('damaged' as const) : ('unavailable' as const), error: error.message } };
        },
      );
      const ok = check.store.status === 'ok';
      // Retry-After only where waiting helps: a damaged store waits for someone to act, as checks.store.error says.
      return {
        status: ok ? 200 : 503,
        ...(check.store.status === 'unavailable' ? { headers: { 'retry-after': '1' } } : {}),
        payload: {
          status: ok ? 'ok' : 'unavailable',
          checks: { store: check.store },
          environment: config.environment,
          store: maskStoreUrl(store.description),
          upstream: config.upstream === undefined ? null : maskEndpointUrl(config.upstream.url),
          webhookEndpoint: config.webhookUrl === undefined ? null : maskEndpointUrl(config.webhookUrl),
          webhookEndpointDisabled: check.disabled,
          // Where the mock's reference data comes from, so that a client can tell which list it is checked against.
          referenceData: { naics: { edition: naicsSource.edition, source: naicsSource.source, sha256: naicsSource.sha256 } },
        },
      };
    },

    getSettings: ({ partner }) => ({ status: 200, payload: settings.of(partner?.id) }),
    updateSettings: ({ partner, body }) => ({ status: 200, payload: settings.set(partner?.id, { validateResponses: body.validateResponses }) }),

    async resetStore({ partner }) {
      await journal.flush();
      await services.reset(partner?.id);
      if (!partner) faults.clear();
      return { status: 200, payload: { reset: partner ? 'partner' : 'everything' } };
    },

    async seedStore({ body, partner }) {
      try {
        const report = await services.seed(body, partner?.key);
        return { status: 200, payload: report };
      } catch (error) {
        if (error instanceof SeedError) throw new ApiError(400, 'E_VALIDATION_FAILED', error.message, error.details);
        throw error;
      }
    },

    getAdminContract: () => ({ status: 200, file: adminContractJson, contentType: 'application/json' }),
    getAdminDocs: async () => ({ status: 200, file: await services.adminDocs(), contentType: 'text/html; charset=utf-8' }),
  };
}
