/** The webhook events of the contract, typed from its `webhooks`, and how the mock builds them. */
import type { webhooks } from '../../generated/openapi.js';
import { newId } from '../ids.ts';

export type WebhookEventType = keyof webhooks;

export type WebhookEventOf<K extends WebhookEventType> = webhooks[K]['post']['requestBody']['content']['application/json'];

export type WebhookEvent = { [K in WebhookEventType]: WebhookEventOf<K> }[WebhookEventType];

export function buildEvent<K extends WebhookEventType>(type: K, data: WebhookEventOf<K>['data'], at: Date): WebhookEventOf<K> {
  return { id: newId('evt'), type, timestamp: at.toISOString(), data } as WebhookEventOf<K>;
}

/** Where events go: the delivery engine, ordered per company. */
export interface EventSink {
  enqueue(event: WebhookEvent, orderingKey: string): void;
}
