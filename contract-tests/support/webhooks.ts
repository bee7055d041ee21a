/**
 * Reads what the target delivered to the suite's receiver, and checks each delivery the way a partner's
 * endpoint must: the Standard Webhooks signature with the client's `verifyWebhook`, then the event and its
 * headers against the contract's `webhooks`. Events are deduplicated on `id`, keeping the first arrival.
 */
import { expect } from 'vitest';
import { verifyWebhook, type WebhookEvent } from '../../client/index.ts';
import { compileWebhookCheck } from '../../contract-model/webhook-check.ts';
import { compiler, contractDocument } from './contract.ts';
import { eventually, target } from './fixtures.ts';
import type { ReceivedDelivery } from './webhook-receiver.ts';

export interface CompanyEvents {
  /** Verified, deduplicated, in order of first arrival. */
  events: WebhookEvent[];
  /** Every delivery attempt received, retries included. */
  deliveries: ReceivedDelivery[];
}

function receiverUrl(): string {
  if (!target.webhook) throw new Error('No webhook receiver: set CONTRACT_WEBHOOK_URL and CONTRACT_WEBHOOK_SECRET.');
  return target.webhook.receiverUrl;
}

export async function deliveriesContaining(text: string): Promise<ReceivedDelivery[]> {
  const response = await fetch(`${receiverUrl()}/_receiver/deliveries?contains=${encodeURIComponent(text)}`);
  return ((await response.json()) as { deliveries: ReceivedDelivery[] }).deliveries;
}

/**
 * Makes the receiver answer 500 to the next `count` deliveries whose body contains `text`; with `alternate`, to
 * every other one of them (the first, the third…) until `count` were refused.
 */
export async function refuseDeliveries(text: string, count = 1, options: { alternate?: boolean } = {}): Promise<void> {
  const response = await fetch(`${receiverUrl()}/_receiver/refusals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contains: text, count, alternate: options.alternate === true }),
  });
  if (response.status !== 204) throw new Error(`The receiver refused the refusal rule: ${response.status}`);
}

const checkWebhook = compileWebhookCheck(contractDocument, compiler);

/** Verifies one delivery and checks it against the contract; fails the test when it is not genuine or valid. */
export async function verifiedEvent(delivery: ReceivedDelivery): Promise<WebhookEvent> {
  const secret = target.webhook?.secret as string;
  const event = await verifyWebhook(delivery.body, delivery.headers, secret);
  expect(checkWebhook.problems(JSON.parse(delivery.body), delivery.headers), `${event.type} ${event.id} keeps the contract's webhooks`).toEqual([]);
  expect(delivery.method).toBe('POST');
  expect(delivery.headers['content-type']?.split(';')[0]).toBe('application/json');
  return event;
}

/** The company's events once `done` says the expected ones are all there. */
export async function eventsOfCompany(
  companyId: string,
  done: (types: string[]) => boolean,
  timeoutMs = 30_000,
): Promise<CompanyEvents> {
  let last: string[] = [];
  return eventually(
    async () => {
      const deliveries = await deliveriesContaining(companyId);
      const seen = new Set<string>();
      const events: WebhookEvent[] = [];
      for (const delivery of deliveries) {
        const event = await verifiedEvent(delivery);
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        events.push(event);
      }
      last = events.map((event) => event.type);
      return done(last) ? { events, deliveries } : undefined;
    },
    { timeoutMs, intervalMs: 100, describe: () => `events of ${companyId} received so far: ${last.join(', ') || 'none'}` },
  );
}
