/**
 * The admin API's routes of webhooks: the partner portal (endpoints, their secrets and switches, events and
 * redeliveries, acting for the partner whose key is sent) and the deliveries of the default endpoint.
 */
import type { components } from '../../generated/mock-admin/openapi.js';
import { partnerOf, type AdminHandlers } from '../pipeline/handler.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import type { WebhookEndpointPortal } from './endpoints/endpoint-portal.ts';
import type { EventPortal } from './event-portal.ts';
import type { WebhookRelay } from './relay/webhook-relay.ts';

type AdminSchemas = components['schemas'];
type WebhookHandlerNames =
  | 'listDeliveries' | 'reenableDefaultWebhookEndpoint' | 'listWebhookEndpoints' | 'createWebhookEndpoint' | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint' | 'deleteWebhookEndpoint' | 'rotateWebhookEndpointSecret' | 'reenableWebhookEndpoint' | 'listEvents' | 'redeliverEvent'
  | 'relayWebhook';

export function webhookHandlers(services: { dispatcher: WebhookDispatcher; endpoints: WebhookEndpointPortal; events: EventPortal; relay: WebhookRelay }): Pick<AdminHandlers, WebhookHandlerNames> {
  const { dispatcher, endpoints, events, relay } = services;
  return {
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
    listWebhookEndpoints: async (context) => ({ status: 200, payload: { data: (await endpoints.list(partnerOf(context).id)).map((view) => withRelayUrl(view, context.baseUrl)) } }),
    createWebhookEndpoint: async (context) => ({ status: 201, payload: withRelayUrl(await endpoints.create(partnerOf(context).id, context.body), context.baseUrl) }),
    getWebhookEndpoint: async (context) => ({ status: 200, payload: withRelayUrl(await endpoints.get(partnerOf(context).id, context.path.endpointId), context.baseUrl) }),
    updateWebhookEndpoint: async (context) => ({ status: 200, payload: withRelayUrl(await endpoints.update(partnerOf(context).id, context.path.endpointId, context.body), context.baseUrl) }),
    deleteWebhookEndpoint: async (context) => ({ status: 200, payload: await endpoints.delete(partnerOf(context).id, context.path.endpointId) }),
    rotateWebhookEndpointSecret: async (context) => ({ status: 200, payload: withRelayUrl(await endpoints.rotateSecret(partnerOf(context).id, context.path.endpointId, context.body?.overlapSeconds), context.baseUrl) }),
    reenableWebhookEndpoint: async (context) => ({ status: 200, payload: withRelayUrl(await endpoints.reenable(partnerOf(context).id, context.path.endpointId), context.baseUrl) }),
    async relayWebhook(context) {
      const payload = await relay.receive(context.path.endpointId, {
        rawBody: context.rawBody ?? new Uint8Array(),
        body: context.body,
        headers: context.headers,
        note: (partnerId, webhook) => context.journal({ partnerId, ...(webhook ? { webhook } : {}) }),
      });
      return { status: 202, payload };
    },
    async listEvents(context) {
      const { limit, cursor, type } = context.query;
      return { status: 200, payload: await events.list(partnerOf(context).id, { limit: limit ?? 20, ...(cursor === undefined ? {} : { cursor }), ...(type === undefined ? {} : { type }) }) };
    },
    redeliverEvent: async (context) => ({ status: 202, payload: await events.redeliver(partnerOf(context).id, context.path.eventId, context.body.endpointId) }),
  };
}

/** The portal keeps an endpoint's relay as a path; a partner gives the sandbox the URL, where this mock is reached. */
function withRelayUrl<V extends { relay: AdminSchemas['WebhookRelay'] }>(view: V, baseUrl: string): V {
  return { ...view, relay: { ...view.relay, url: `${baseUrl}${view.relay.url}` } };
}
