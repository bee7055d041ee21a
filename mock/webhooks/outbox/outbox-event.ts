/** How the formation timeline builds the contract's webhook events, and where it learns to whom they go. */
import { newId } from '../../ids.ts';
import type { OutboxEvent } from './outbox-types.ts';
import { toTimestamp, type WebhookEventOf, type WebhookEventType } from '../event-payloads.ts';

export function buildEvent<K extends WebhookEventType>(type: K, data: WebhookEventOf<K>['data'], at: Date): WebhookEventOf<K> {
  return { id: newId('evt'), type, timestamp: toTimestamp(at), data } as WebhookEventOf<K>;
}

/** The delivery side, as the timeline sees it: who receives an event, and a nudge once events are stored. */
export interface EventDestinations {
  endpointsFor(partnerId: string, type: WebhookEventType): Promise<readonly string[]>;
  /** New events were stored: deliver them. */
  notify(): void;
}

export async function outboxEvent<K extends WebhookEventType>(
  destinations: EventDestinations,
  partnerId: string,
  orderingKey: string,
  type: K,
  data: WebhookEventOf<K>['data'],
  at: Date,
): Promise<OutboxEvent> {
  return { partnerId, event: buildEvent(type, data, at), orderingKey, endpointIds: await destinations.endpointsFor(partnerId, type) };
}
