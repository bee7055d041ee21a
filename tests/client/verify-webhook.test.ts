import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import bundle from '../../generated/openapi.json' with { type: 'json' };
import type { DocumentReadyEvent } from '../../generated/openapi.js';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationErrorCode } from '../../client/index.ts';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const secret = newSecret();
const now = new Date('2026-11-24T09:00:10Z');
const clock = { now: () => now };
const seconds = (date: Date) => String(Math.floor(date.getTime() / 1000));
const minutesFromNow = (minutes: number) => new Date(now.getTime() + minutes * 60_000);

const documentReady: DocumentReadyEvent = {
  id: 'evt_8rTy1UiO4pAs7DfG0hJk3LzX',
  type: 'document.ready',
  timestamp: '2026-11-24T09:00:05Z',
  data: {
    serviceCompanyId: 'com_5kHx9QaZ2mTw6RcN8vLp3JyD',
    serviceCustomerId: 'cus_8sWq2LmX4pTn7VbK3dRz9YhC',
    documentId: 'doc_3fGh7JkL2zXc9VbN4mQw8ErT',
    documentType: 'ARTICLES_OF_ORGANIZATION',
  },
};

/** A delivery as the API sends it: the raw body and the three Standard Webhooks headers. */
function delivery(
  event: unknown,
  options: { secrets?: string[]; at?: Date; id?: string } = {},
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const at = options.at ?? now;
  const id = options.id ?? (event as { id: string }).id;
  const signatures = (options.secrets ?? [secret]).map((key) => new Webhook(key).sign(id, at, body));
  return {
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': seconds(at), 'webhook-signature': signatures.join(' ') },
  };
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationErrorCode> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as Error).message.length).toBeGreaterThan(0);
    return (error as WebhookVerificationError).code;
  }
  throw new Error('Expected the delivery to be refused.');
}

describe('verifyWebhook', () => {
  it('returns the event of a good delivery, narrowed by its type', async () => {
    const { body, headers } = delivery(documentReady);
    const event = await verifyWebhook(body, headers, secret, clock);
    expect(event).toEqual(documentReady);
    if (event.type !== 'document.ready') throw new Error(`Unexpected type ${event.type}`);
    // Compiles only because `type` narrowed the union to the document.ready event.
    const documentId: string = event.data.documentId;
    expect(documentId).toBe('doc_3fGh7JkL2zXc9VbN4mQw8ErT');
  });

  it('accepts the body as bytes and the headers as a Headers object', async () => {
    const { body, headers } = delivery(documentReady);
    const event = await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, clock);
    expect(event.id).toBe(documentReady.id);
  });

  it('accepts Node-style headers, with any case and array values', async () => {
    const { body, headers } = delivery(documentReady);
    const nodeHeaders = {
      'Webhook-Id': headers['webhook-id'],
      'webhook-timestamp': [headers['webhook-timestamp'] as string],
      'webhook-signature': headers['webhook-signature'],
      'content-type': undefined,
    };
    await expect(verifyWebhook(body, nodeHeaders, secret, clock)).resolves.toMatchObject({ type: 'document.ready' });
  });

  it.each(Object.keys(bundle.webhooks))('verifies the contract example of %s', async (type) => {
    const examples = Object.values(bundle.components.examples as Record<string, { value: unknown }>);
    const example = examples.find((candidate) => (candidate.value as { type?: unknown }).type === type);
    expect(example, `an example event of type ${type}`).toBeDefined();
    const { body, headers } = delivery(example?.value);
    await expect(verifyWebhook(body, headers, secret, clock)).resolves.toMatchObject({ type });
  });

  it('refuses a tampered body', async () => {
    const { body, headers } = delivery(documentReady);
    const tampered = body.replace('doc_3fGh7JkL2zXc9VbN4mQw8ErT', 'doc_000000000000000000000000');
    expect(await refusal(verifyWebhook(tampered, headers, secret, clock))).toBe('E_WEBHOOK_SIGNATURE_INVALID');
  });

  it('refuses a body re-serialised after parsing (not the raw one)', async () => {
    const { body, headers } = delivery(documentReady);
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    expect(await refusal(verifyWebhook(reserialised, headers, secret, clock))).toBe('E_WEBHOOK_SIGNATURE_INVALID');
  });

  it('refuses a delivery signed with another secret', async () => {
    const { body, headers } = delivery(documentReady, { secrets: [newSecret()] });
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_SIGNATURE_INVALID');
  });

  it('refuses a stale timestamp', async () => {
    const { body, headers } = delivery(documentReady, { at: minutesFromNow(-6) });
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('refuses a timestamp in the future', async () => {
    const { body, headers } = delivery(documentReady, { at: minutesFromNow(6) });
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('accepts a timestamp within the tolerance, and honours a custom one', async () => {
    const { body, headers } = delivery(documentReady, { at: minutesFromNow(-4) });
    await expect(verifyWebhook(body, headers, secret, clock)).resolves.toBeDefined();
    const code = await refusal(verifyWebhook(body, headers, secret, { ...clock, toleranceSeconds: 60 }));
    expect(code).toBe('E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('uses the system clock by default', async () => {
    const { body, headers } = delivery(documentReady, { at: new Date() });
    await expect(verifyWebhook(body, headers, secret)).resolves.toMatchObject({ type: 'document.ready' });
  });

  it('accepts a delivery with two signatures when the second one is of the known secret', async () => {
    const { body, headers } = delivery(documentReady, { secrets: [newSecret(), secret] });
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    await expect(verifyWebhook(body, headers, secret, clock)).resolves.toMatchObject({ type: 'document.ready' });
  });

  it('accepts a delivery signed with the old secret when both secrets are given during a rotation', async () => {
    const oldSecret = newSecret();
    const { body, headers } = delivery(documentReady, { secrets: [oldSecret] });
    await expect(verifyWebhook(body, headers, [secret, oldSecret], clock)).resolves.toBeDefined();
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('refuses a delivery without %s', async (name) => {
    const { body, headers } = delivery(documentReady);
    delete headers[name];
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_HEADERS_MISSING');
  });

  it('refuses a webhook-timestamp that is not Unix seconds', async () => {
    const { body, headers } = delivery(documentReady);
    headers['webhook-timestamp'] = '2026-11-24T09:00:10Z';
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_HEADERS_MISSING');
  });

  it('refuses a correctly signed event of a type the contract does not define, naming it', async () => {
    const renamed = { ...documentReady, type: 'company.renamed', data: { serviceCompanyId: 'com_1' } };
    const { body, headers } = delivery(renamed);
    const error = await verifyWebhook(body, headers, secret, clock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({
      code: 'E_WEBHOOK_UNKNOWN_EVENT_TYPE',
      eventType: 'company.renamed',
      eventId: documentReady.id,
    });
  });

  it('refuses a correctly signed body that is not an event', async () => {
    const notJson = 'not json';
    const id = 'evt_1';
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': seconds(now),
      'webhook-signature': new Webhook(secret).sign(id, now, notJson),
    };
    expect(await refusal(verifyWebhook(notJson, headers, secret, clock))).toBe('E_WEBHOOK_PAYLOAD_INVALID');

    const { body, headers: missingData } = delivery({ id: 'evt_2', type: 'document.ready', timestamp: 'x' });
    expect(await refusal(verifyWebhook(body, missingData, secret, clock))).toBe('E_WEBHOOK_PAYLOAD_INVALID');
  });

  it('refuses an event whose id is not its webhook-id', async () => {
    const { body, headers } = delivery(documentReady, { id: 'evt_other' });
    expect(await refusal(verifyWebhook(body, headers, secret, clock))).toBe('E_WEBHOOK_PAYLOAD_INVALID');
  });

  it('rejects a malformed secret as a configuration error, without echoing it', async () => {
    const { body, headers } = delivery(documentReady);
    const error = await verifyWebhook(body, headers, 'whsec_!!!not-base64!!!', clock).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).not.toContain('not-base64');
  });
});
