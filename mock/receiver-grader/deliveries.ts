/**
 * Deliveries as the mock signs them (webhooks/signing.ts, Standard Webhooks), and the ways the battery breaks one:
 * each a delivery a receiver must refuse, made from a real one by a single change.
 */
import { randomBytes } from 'node:crypto';
import type { WebhookEvent } from '../webhooks/event-payloads.ts';
import { signedHeaders } from '../webhooks/signing.ts';
import type { Delivery } from './wire.ts';

/** The event as the service sends it: its JSON, signed at `at` with every secret given, in order. */
export function signedDelivery(event: WebhookEvent, secrets: readonly string[], at: Date): Delivery {
  const body = JSON.stringify(event);
  return { headers: signedHeaders(secrets, event.id, body, at), body };
}

/** The same delivery without its `webhook-signature` header. */
export function withoutSignature(delivery: Delivery): Delivery {
  const { 'webhook-signature': _signature, ...headers } = delivery.headers;
  return { ...delivery, headers };
}

/** The same delivery with a signature of the right form that no secret made: 32 random bytes. */
export function withRandomSignature(delivery: Delivery): Delivery {
  return { ...delivery, headers: { ...delivery.headers, 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` } };
}

/**
 * The delivery with its body changed after it was signed: the first text of its `data` ends in another letter
 * (a company id made another's, as one who intercepted it would). Returns which field, for the report.
 */
export function withTamperedBody(event: WebhookEvent, delivery: Delivery): { delivery: Delivery; field: string } {
  const data = event.data as Record<string, unknown>;
  const [field, value] = Object.entries(data).find((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].length > 0) ?? [];
  if (field === undefined || value === undefined) throw new Error(`the example of ${event.type} has no text in its data to alter`);
  const altered = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
  return { delivery: { ...delivery, body: JSON.stringify({ ...event, data: { ...data, [field]: altered } }) }, field: `data.${field}` };
}
