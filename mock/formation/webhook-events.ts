/** How the formation engine builds the contract's webhook events, and where it sends them. */
import { newId } from '../ids.ts';
import { toTimestamp, type WebhookEvent, type WebhookEventOf, type WebhookEventType } from '../webhooks/events.ts';

export function buildEvent<K extends WebhookEventType>(type: K, data: WebhookEventOf<K>['data'], at: Date): WebhookEventOf<K> {
  return { id: newId('evt'), type, timestamp: toTimestamp(at), data } as WebhookEventOf<K>;
}

/** Where events go: the delivery engine, ordered per company. */
export interface EventSink {
  enqueue(event: WebhookEvent, orderingKey: string): void;
}
