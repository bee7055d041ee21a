/**
 * The partner portal's events: a partner's events with the bytes each delivery sends and where each went (state and
 * attempts per endpoint), and redelivering one to one endpoint, under the same `webhook-id` as Standard Webhooks
 * wants for a retry of the same message; past its partner's full queue (the memory store's), a redelivery is refused
 * as the relay's events are, rather than answered as queued.
 */
import type { components } from '../../generated/mock-admin/openapi.js';
import { notFound } from '../http/api-error.ts';
import { queueFull } from './full-queue.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import type { Store } from '../store/store.ts';
import { defaultEndpointId, type WebhookDispatcher } from './dispatcher.ts';
import { getEndpoint, listEndpoints } from './endpoints/endpoint-records.ts';
import type { WebhookOutbox } from './outbox/outbox.ts';

type AdminSchemas = components['schemas'];

export interface EventPortal {
  list(partnerId: string, query: { limit: number; cursor?: string; type?: string }): Promise<AdminSchemas['MockEventPage']>;
  redeliver(partnerId: string, eventId: string, endpointId: string): Promise<{ eventId: string; endpointId: string; state: 'pending' }>;
}

export function createEventPortal(options: { store: Store; outbox: WebhookOutbox; dispatcher: WebhookDispatcher; cursors: CursorCodec; defaultEndpoint: boolean }): EventPortal {
  const { store, outbox, dispatcher } = options;
  // The default endpoint (--webhook-url) is the endpoint of the partners that have none of their own: the receiver
  // of the developers who did not set one up. A partner with endpoints of its own cannot send anything there.
  const usesDefaultEndpoint = async (partnerId: string) => (await store.read((tx) => listEndpoints(tx, partnerId))).length === 0;
  return {
    async list(partnerId, { limit, cursor, type }) {
      // Event numbers count every partner's events: the cursor carries one encrypted, bound to this partner's list.
      const scope = { list: 'events', partner: partnerId, type };
      const before = cursor === undefined ? undefined : options.cursors.decode(cursor, scope);
      const page = await outbox.events(partnerId, { limit, ...(before === undefined ? {} : { before }), ...(type === undefined ? {} : { type }) }, Date.now());
      return {
        // The store keeps an event's type as text; it is one of the contract's, as the events were built from it.
        data: page.items.map((event) => ({
          id: event.id,
          type: event.type as AdminSchemas['WebhookEventType'],
          createdAt: new Date(event.createdAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          payload: JSON.parse(event.body) as Record<string, unknown>,
          deliveries: event.deliveries as AdminSchemas['EventDelivery'][],
        })),
        hasMore: page.next !== undefined,
        nextCursor: page.next === undefined ? null : options.cursors.encode(page.next, scope),
      };
    },

    async redeliver(partnerId, eventId, endpointId) {
      const known = endpointId === defaultEndpointId
        ? options.defaultEndpoint && (await usesDefaultEndpoint(partnerId))
        : (await store.read((tx) => getEndpoint(tx, partnerId, endpointId))) !== undefined;
      if (!known) throw notFound(`webhook endpoint ${endpointId}`);
      const redelivered = await outbox.redeliver(partnerId, eventId, endpointId, Date.now());
      if (redelivered === 'unknown') throw notFound(`event ${eventId}`);
      if (redelivered === 'full') {
        throw queueFull(`the redelivery to webhook endpoint ${endpointId}`, 'Ask again after Retry-After, once deliveries have gone out: an endpoint disabled holds its own until it is re-enabled.');
      }
      dispatcher.notify();
      return { eventId, endpointId, state: 'pending' };
    },
  };
}
