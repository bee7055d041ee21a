export { createWebhookDispatcher, endpointOrderingKey } from './dispatcher.ts';
export { buildEndpointDisabledEvent, toTimestamp } from './events.ts';
export type { WebhookEndpointDisabledEvent, WebhookEvent, WebhookEventOf, WebhookEventType } from './events.ts';
export { contractAttemptTimeoutMs, contractRetryScheduleMs, scaleSchedule } from './schedule.ts';
export type {
  AttemptOutcome,
  DeliveryRecord,
  DeliveryState,
  DispatcherLogger,
  JournalEntry,
  WebhookDispatcher,
  WebhookDispatcherOptions,
} from './types.ts';
