/**
 * Reads what the target delivered to the suite's receiver, and checks each delivery the way a partner's
 * endpoint must: the Standard Webhooks signature with the client's `verifyWebhook`, then the event and its
 * headers against the contract's `webhooks`. Events are deduplicated on `id`, keeping the first arrival.
 */
import type { ValidateFunction } from 'ajv';
import { expect } from 'vitest';
import { verifyWebhook, type WebhookEvent } from '../../client/index.ts';
import { compileHeadersCheck, type HeadersCheck } from '../../contract-model/headers-check.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { compiler, contractDocument, webhookOperation } from './contract.ts';
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

/** The checks of one event type's deliveries, compiled once: its body schema and its header parameters. */
interface WebhookCheck {
  body: ValidateFunction;
  headers: HeadersCheck;
}

const webhookChecks = new Map<string, WebhookCheck | undefined>();

function webhookCheck(eventType: string): WebhookCheck | undefined {
  if (webhookChecks.has(eventType)) return webhookChecks.get(eventType);
  const operation = webhookOperation(eventType);
  const bodySchema = operation?.requestBody?.content.get('application/json');
  const headers = (operation?.parameters ?? [])
    .filter((parameter) => parameter.in === 'header')
    .map((parameter) => ({ name: parameter.name.toLowerCase(), required: parameter.required, schema: parameter.schema }));
  // Every webhook of the contract documents a JSON body: one without a schema would go unchecked, so it fails here.
  if (operation && !bodySchema) throw new Error(`the contract's webhook ${eventType} documents no application/json body schema`);
  const check = operation && {
    body: compiler.compile(bodySchema as NonNullable<typeof bodySchema>),
    headers: compileHeadersCheck(contractDocument, headers, compiler),
  };
  webhookChecks.set(eventType, check);
  return check;
}

/** Verifies one delivery and checks it against the contract; fails the test when it is not genuine or valid. */
export async function verifiedEvent(delivery: ReceivedDelivery): Promise<WebhookEvent> {
  const secret = target.webhook?.secret as string;
  const event = await verifyWebhook(delivery.body, delivery.headers, secret);
  const contract = webhookCheck(event.type);
  expect(contract, `event type ${event.type} is in the contract's webhooks`).toBeDefined();
  if (!contract) return event;
  const problems: string[] = [];
  if (!contract.body(JSON.parse(delivery.body))) problems.push(...describeSchemaErrors('body', contract.body.errors));
  contract.headers(delivery.headers, problems);
  expect(problems, `${event.type} ${event.id} breaks the contract's webhooks`).toEqual([]);
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
