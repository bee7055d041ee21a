import type { webhooks } from '../../generated/openapi.js';
import { newEventId } from './event-id.ts';

/** Every event type the contract declares under `webhooks`. */
export type WebhookEventType = keyof webhooks & string;

/** The request body the contract declares for one event type. */
export type WebhookEventOf<K extends WebhookEventType> =
  webhooks[K]['post']['requestBody']['content']['application/json'];

/** Any event of the contract; derived from `webhooks`, so a new webhook there is picked up here. */
export type WebhookEvent = { [K in WebhookEventType]: WebhookEventOf<K> }[WebhookEventType];

export type WebhookEndpointDisabledEvent = WebhookEventOf<'webhook_endpoint.disabled'>;

export interface EndpointDisabledFacts {
  endpointUrl: string;
  disabledAt: Date;
  failedEventId: string;
}

/** The event that tells the partner, once the endpoint is re-enabled, that deliveries had stopped and since when. */
export function buildEndpointDisabledEvent(facts: EndpointDisabledFacts, now: Date): WebhookEndpointDisabledEvent {
  return {
    id: newEventId(),
    type: 'webhook_endpoint.disabled',
    timestamp: toTimestamp(now),
    data: {
      endpointUrl: facts.endpointUrl,
      disabledAt: toTimestamp(facts.disabledAt),
      failedEventId: facts.failedEventId,
    },
  };
}

/** RFC 3339 in UTC without milliseconds, like the contract's examples (`2026-11-22T10:15:30Z`). */
export function toTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
