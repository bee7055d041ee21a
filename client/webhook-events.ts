/**
 * The webhook events as a union discriminated by `type`, computed from the generated `webhooks` so that an event
 * added to the contract joins the union by itself. At run time the known types are the bundle's `webhooks` keys,
 * from the same contract, so both change together.
 */
import type { webhooks } from '../generated/openapi.js';
import { contractWebhookEventTypes } from './contract-bundle.ts';

export type WebhookEventType = keyof webhooks;

export type WebhookEventOf<K extends WebhookEventType> =
  webhooks[K]['post']['requestBody']['content']['application/json'];

export type WebhookEvent = { [K in WebhookEventType]: WebhookEventOf<K> }[WebhookEventType];

const knownTypes: ReadonlySet<string> = new Set(contractWebhookEventTypes);

export function isKnownWebhookEventType(type: string): type is WebhookEventType {
  return knownTypes.has(type);
}
