/**
 * The admin API's handlers, one per operation of its contract (mock/admin/openapi/), typed from the generated
 * `generated/mock-admin/openapi.d.ts`: an admin operation added to the contract without a handler fails to compile.
 * With a partner's key, a handler acts for that partner only; without one, for every partner.
 */
import type { components, operations } from '../../generated/mock-admin/openapi.js';
import type { ContractDocument } from '../../contract-model/document.ts';
import { ApiError, validationFailed } from '../http/api-error.ts';
import type { MockConfig } from '../config.ts';
import type { EventPortal } from '../portal/events.ts';
import type { WebhookEndpointPortal } from '../portal/webhook-endpoints.ts';
import { naicsSource } from '../reference/index.ts';
import { applySeed, SeedError } from '../seed/seed.ts';
import { maskStoreUrl } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { maskEndpointUrl } from '../webhooks/endpoint-url.ts';
import type { WebhookDispatcher } from '../webhooks/types.ts';
import { partnerOf, type HandlersOf } from '../resources/handler.ts';
import type { Fault, FaultRegistry } from './faults.ts';
import type { RequestJournal } from './request-journal.ts';
import type { SettingsRegistry } from './settings.ts';
import type { CursorCodec } from '../http/cursor.ts';

export type AdminHandlers = HandlersOf<operations>;

type AdminSchemas = components['schemas'];

/**
 * An arm request as the validator let it through. openapi-typescript renders the schema's "status or delayMs"
 * (a top-level `anyOf` of `required` lists) as `unknown`; these are its properties.
 */
type FaultArmRequest = Pick<AdminSchemas['Fault'], 'operationId' | 'status' | 'delayMs'> & { count?: number };

export interface AdminServices {
  config: MockConfig;
  store: Store;
  journal: RequestJournal;
  dispatcher: WebhookDispatcher;
  faults: FaultRegistry;
  settings: SettingsRegistry;
  /** Encodes the journal's cursors, so that a partner's cursor says nothing of other partners' requests. */
  cursors: CursorCodec;
  endpoints: WebhookEndpointPortal;
  events: EventPortal;
  /** The operationIds of the API contract served: what a fault may name. */
  apiOperationIds: readonly string[];
  /** Where this process answers: a seed calls the API there, not at --public-url (which may be a proxy). */
  selfUrl: () => string;
  /** Where clients reach the mock (--public-url, or where it listens): the first server of the contract it serves. */
  publicUrl: () => string;
  adminContract: ContractDocument;
  adminDocs: () => Promise<Buffer>;
}

export function createAdminHandlers(services: AdminServices): AdminHandlers {
  const { config, store, journal, dispatcher, faults, settings, endpoints, events } = services;
  const adminContractJson = Buffer.from(JSON.stringify(services.adminContract));
  const faultView = (fault: Fault & { partner?: string }) => ({
    operationId: fault.operationId,
    ...(fault.status === undefined ? {} : { status: fault.status }),
    ...(fault.delayMs === undefined ? {} : { delayMs: fault.delayMs }),
    count: fault.count,
    partner: fault.partner ?? null,
  });
  const faultList = (partnerId?: string) => ({ data: faults.list(partnerId).map(faultView) });

  return {
    async getHealth() {
      return {
        status: 200,
        payload: {
          status: 'ok',
          environment: config.environment,
          store: maskStoreUrl(store.description),
          webhookEndpoint: config.webhookUrl === undefined ? null : maskEndpointUrl(config.webhookUrl),
          webhookEndpointDisabled: await dispatcher.isDisabled(),
          // Where the mock's reference data comes from, so that a client can tell which list it is checked against.
          referenceData: { naics: { edition: naicsSource.edition, source: naicsSource.source, sha256: naicsSource.sha256 } },
        },
      };
    },

    async listRequests({ partner, query }) {
      const scope = { list: 'requests', partner: partner?.id, operationId: query.operationId, status: query.status };
      const before = query.cursor === undefined ? undefined : services.cursors.decode(query.cursor, scope);
      const page = await journal.page({
        limit: query.limit ?? 100,
        ...(before === undefined ? {} : { before }),
        ...(query.operationId === undefined ? {} : { operationId: query.operationId }),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(partner ? { partnerId: partner.id } : {}),
      });
      const nextCursor = page.nextCursor === null ? null : services.cursors.encode(Number(page.nextCursor), scope);
      return { status: 200, payload: { data: page.requests, nextCursor } };
    },

    async listDeliveries({ partner, query }) {
      const limit = query.limit ?? 100;
      const [endpointDisabled, deliveries, attempts] = await Promise.all([dispatcher.isDisabled(), dispatcher.deliveries(limit, partner?.id), dispatcher.journal(limit, partner?.id)]);
      // The store keeps an event's type as text; it is one of the contract's, as the events were built from it.
      return { status: 200, payload: { endpointDisabled, deliveries: deliveries as AdminSchemas['Delivery'][], attempts: attempts as AdminSchemas['DeliveryAttempt'][] } };
    },

    async reenableDefaultWebhookEndpoint() {
      await dispatcher.reenable();
      return { status: 200, payload: { endpointDisabled: await dispatcher.isDisabled() } };
    },

    getSettings: ({ partner }) => ({ status: 200, payload: settings.of(partner?.id) }),

    updateSettings: ({ partner, body }) => ({ status: 200, payload: settings.set(partner?.id, { validateResponses: body.validateResponses }) }),

    listFaults: ({ partner }) => ({ status: 200, payload: faultList(partner?.id) }),

    armFault({ partner, body: request }) {
      const body = request as FaultArmRequest;
      if (!services.apiOperationIds.includes(body.operationId)) {
        throw validationFailed([{ in: 'body', field: '/operationId', code: 'E_NOT_ALLOWED_VALUE', message: `Not an operation of the contract served: use one of ${services.apiOperationIds.join(', ')}.` }]);
      }
      faults.arm({
        operationId: body.operationId,
        ...(body.status === undefined ? {} : { status: body.status }),
        ...(body.delayMs === undefined ? {} : { delayMs: body.delayMs }),
        count: body.count ?? 1,
        ...(partner ? { partnerId: partner.id, partner: partner.maskedKey } : {}),
      });
      return { status: 201, payload: faultList(partner?.id) };
    },

    clearFaults({ partner }) {
      faults.clear(partner?.id);
      return { status: 200, payload: faultList(partner?.id) };
    },

    async resetStore({ partner }) {
      await journal.flush();
      await store.reset(partner?.id);
      if (!partner) faults.clear();
      return { status: 200, payload: { reset: partner ? 'partner' : 'everything' } };
    },

    async seedStore({ body, partner }) {
      try {
        const report = await applySeed(body, { baseUrl: services.selfUrl(), ...(partner ? { defaultApiKey: partner.key } : {}), sandbox: config.environment === 'sandbox' });
        return { status: 200, payload: report };
      } catch (error) {
        if (error instanceof SeedError) throw new ApiError(400, 'E_VALIDATION_FAILED', error.message, error.details);
        throw error;
      }
    },

    async listWebhookEndpoints(context) {
      return { status: 200, payload: { data: await endpoints.list(partnerOf(context).id) } };
    },
    async createWebhookEndpoint(context) {
      return { status: 201, payload: await endpoints.create(partnerOf(context).id, context.body) };
    },
    async getWebhookEndpoint(context) {
      return { status: 200, payload: await endpoints.get(partnerOf(context).id, context.path.endpointId) };
    },
    async updateWebhookEndpoint(context) {
      return { status: 200, payload: await endpoints.update(partnerOf(context).id, context.path.endpointId, context.body) };
    },
    async deleteWebhookEndpoint(context) {
      return { status: 200, payload: await endpoints.delete(partnerOf(context).id, context.path.endpointId) };
    },
    async rotateWebhookEndpointSecret(context) {
      return { status: 200, payload: await endpoints.rotateSecret(partnerOf(context).id, context.path.endpointId, context.body?.overlapSeconds) };
    },
    async reenableWebhookEndpoint(context) {
      return { status: 200, payload: await endpoints.reenable(partnerOf(context).id, context.path.endpointId) };
    },

    async listEvents(context) {
      const { limit, cursor, type } = context.query;
      return { status: 200, payload: await events.list(partnerOf(context).id, { limit: limit ?? 20, ...(cursor === undefined ? {} : { cursor }), ...(type === undefined ? {} : { type }) }) };
    },
    async redeliverEvent(context) {
      return { status: 202, payload: await events.redeliver(partnerOf(context).id, context.path.eventId, context.body.endpointId) };
    },

    getAdminContract: () => ({ status: 200, file: adminContractJson, contentType: 'application/json' }),
    getAdminDocs: async () => ({ status: 200, file: await services.adminDocs(), contentType: 'text/html; charset=utf-8' }),
  };
}
