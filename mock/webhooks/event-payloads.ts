// The event types are the client's, which derives them from the contract's `webhooks`: one definition for both.
import type { WebhookEventOf } from '../../client/webhook-events.ts';
import { newId } from '../ids.ts';

export type { WebhookEvent, WebhookEventOf, WebhookEventType } from '../../client/webhook-events.ts';

export type WebhookEndpointDisabledEvent = WebhookEventOf<'webhook_endpoint.disabled'>;

export interface EndpointDisabledFacts {
  endpointUrl: string;
  disabledAt: Date;
  failedEventId: string;
}

/** The event that tells the partner, once the endpoint is re-enabled, that deliveries had stopped and since when. */
export function buildEndpointDisabledEvent(facts: EndpointDisabledFacts, now: Date): WebhookEndpointDisabledEvent {
  return {
    id: newId('evt'),
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
