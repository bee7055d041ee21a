/**
 * Which events a partner's endpoint receives, whoever made them (the mock's formations, or a sandbox through the
 * webhook relay): those of the types it subscribes to (`enabledEvents`, `*` for every type), unless its partner
 * switched it off, when it receives nothing until switched on. One disabled after failing deliveries still receives
 * them: it holds them until it is re-enabled.
 */
import type { EndpointState } from '../outbox/outbox-types.ts';
import type { WebhookEndpointRecord } from './endpoint-records.ts';

export function subscribesTo(endpoint: Pick<WebhookEndpointRecord, 'enabledEvents'>, type: string): boolean {
  return endpoint.enabledEvents.includes('*') || endpoint.enabledEvents.includes(type);
}

export function switchedOff(state: EndpointState | undefined): boolean {
  return state?.disabled?.reason === 'requested';
}
