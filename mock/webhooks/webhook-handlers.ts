/**
 * The admin API's routes of webhooks: the partner portal (endpoints, their secrets and switches, events and
 * redeliveries, acting for the partner whose key is sent) and the deliveries of the default endpoint.
 */
import type { components } from '../../generated/mock-admin/openapi.js';
import { partnerOf, type AdminHandlers } from '../pipeline/handler.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import type { WebhookEndpointPortal } from './endpoints/endpoint-portal.ts';
import type { EventPortal } from './event-portal.ts';

type AdminSchemas = components['schemas'];
type WebhookHandlerNames =
  | 'listDeliveries' | 'reenableDefaultWebhookEndpoint' | 'listWebhookEndpoints' | 'createWebhookEndpoint' | 'getWebhookEndpoint'
  | 'updateWebhookEndpoint' | 'deleteWebhookEndpoint' | 'rotateWebhookEndpointSecret' | 'reenableWebhookEndpoint' | 'listEvents' | 'redeliverEvent';

export function webhookHandlers(services: { dispatcher: WebhookDispatcher; endpoints: WebhookEndpointPortal; events: EventPortal }): Pick<AdminHandlers, WebhookHandlerNames> {
  const { dispatcher, endpoints, events } = services;
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
    listWebhookEndpoints: async (context) => ({ status: 200, payload: { data: await endpoints.list(partnerOf(context).id) } }),
    createWebhookEndpoint: async (context) => ({ status: 201, payload: await endpoints.create(partnerOf(context).id, context.body) }),
    getWebhookEndpoint: async (context) => ({ status: 200, payload: await endpoints.get(partnerOf(context).id, context.path.endpointId) }),
    updateWebhookEndpoint: async (context) => ({ status: 200, payload: await endpoints.update(partnerOf(context).id, context.path.endpointId, context.body) }),
    deleteWebhookEndpoint: async (context) => ({ status: 200, payload: await endpoints.delete(partnerOf(context).id, context.path.endpointId) }),
    rotateWebhookEndpointSecret: async (context) => ({ status: 200, payload: await endpoints.rotateSecret(partnerOf(context).id, context.path.endpointId, context.body?.overlapSeconds) }),
    reenableWebhookEndpoint: async (context) => ({ status: 200, payload: await endpoints.reenable(partnerOf(context).id, context.path.endpointId) }),
    async listEvents(context) {
      const { limit, cursor, type } = context.query;
      return { status: 200, payload: await events.list(partnerOf(context).id, { limit: limit ?? 20, ...(cursor === undefined ? {} : { cursor }), ...(type === undefined ? {} : { type }) }) };
    },
    redeliverEvent: async (context) => ({ status: 202, payload: await events.redeliver(partnerOf(context).id, context.path.eventId, context.body.endpointId) }),
  };
}
