/**
 * Verifies a webhook delivery (Standard Webhooks, see *Webhooks* in the contract) and returns its event, typed
 * by `type`:
 *
 *   const event = await verifyWebhook(rawBody, request.headers, process.env.WEBHOOK_SECRET);
 *   if (event.type === 'document.ready') { event.data.documentId … }
 *
 * Pass the body exactly as received, before any JSON parsing: the signature covers its bytes.
 *
 * The HMAC is computed by the `standardwebhooks` package (`Webhook.sign`), not here. Its `verify` is not used
 * because it reads the clock itself with a fixed five-minute tolerance, which would make `now` and
 * `toleranceSeconds` impossible; the rest of what it does — compare each `v1` signature in constant time — is
 * done below. Nothing here needs Node: it runs wherever `TextDecoder` does (browsers, Deno, Bun, workers).
 *
 * The signature is checked before the timestamp, so that `E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE` is only ever
 * said of a delivery that was really signed with the secret: a replay, or a clock that is off.
 */
import { Webhook } from 'standardwebhooks';
import { contractFacts } from '../generated/contract-facts.ts';
import { isKnownWebhookEventType, type WebhookEvent } from './webhook-events.ts';
import { WebhookVerificationError } from './webhook-verification-error.ts';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now`, either way (default: the contract's, five minutes). */
  toleranceSeconds?: number;
  /** The clock (default: the system's). */
  now?: () => Date;
}

const defaultToleranceSeconds = contractFacts.limits.webhooks.timestampToleranceSeconds;

/**
 * @param secret the signing secret (`whsec_…`); during a rotation, both the new and the old one: the delivery is
 *   accepted when any of them verifies it.
 * @throws WebhookVerificationError (as a rejection) when the delivery must not be trusted, or is of a type this
 *   version of the contract does not know (`E_WEBHOOK_UNKNOWN_EVENT_TYPE`: the contract asks to answer `2xx`
 *   to those).
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const signers = signersFor(secret);
  const toleranceSeconds = options.toleranceSeconds ?? defaultToleranceSeconds;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError(`verifyWebhook: toleranceSeconds must be a number of seconds, not ${toleranceSeconds}.`);
  }

  const { id, timestamp, signatures } = readSignatureHeaders(headers);
  // `sign` reads a Buffer as UTF-8 text anyway, so decoding the bytes here signs exactly what it would.
  const payload = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);

  const signedAt = new Date(timestamp * 1000);
  const expected = signers.map((signer) => signer.sign(id, signedAt, payload));
  if (!signatures.some((passed) => expected.some((candidate) => equalInConstantTime(passed, candidate)))) {
    throw new WebhookVerificationError(
      'E_WEBHOOK_SIGNATURE_INVALID',
      'No signature in webhook-signature matches the body with the signing secret(s): the body was altered, ' +
        'the secret is wrong, or the body is not the raw one received.',
    );
  }

  const now = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (now - timestamp > toleranceSeconds || timestamp - now > toleranceSeconds) {
    const direction = timestamp < now ? `${now - timestamp} s old` : `${timestamp - now} s in the future`;
    throw new WebhookVerificationError(
      'E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE',
      `webhook-timestamp is ${direction}; at most ${toleranceSeconds} s either way is accepted (a replay, or a clock ` +
        'that is off).',
    );
  }

  return parseEvent(payload, id);
}

function signersFor(secret: string | string[]): Webhook[] {
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new TypeError('verifyWebhook: at least one signing secret is required.');
  return secrets.map((value, index) => {
    try {
      return new Webhook(value);
    } catch {
      // The secret itself stays out of the message: it would end up in logs.
      throw new TypeError(
        `verifyWebhook: signing secret ${secrets.length > 1 ? `#${index + 1} ` : ''}is not a Standard Webhooks ` +
          'secret (`whsec_` followed by base64).',
      );
    }
  });
}

function readSignatureHeaders(headers: WebhookHeaders): { id: string; timestamp: number; signatures: string[] } {
  const id = single(headers, 'webhook-id');
  const timestampText = single(headers, 'webhook-timestamp');
  const signatureValues = all(headers, 'webhook-signature');

  if (id === undefined || timestampText === undefined || signatureValues.length === 0) {
    const missing = [
      id === undefined ? ['webhook-id'] : [],
      timestampText === undefined ? ['webhook-timestamp'] : [],
      signatureValues.length === 0 ? ['webhook-signature'] : [],
    ].flat();
    throw new WebhookVerificationError(
      'E_WEBHOOK_HEADERS_MISSING',
      `The delivery lacks ${missing.join(', ')} (or has conflicting values): it is not a Standard Webhooks delivery.`,
    );
  }
  if (!/^\d{1,15}$/.test(timestampText)) {
    throw new WebhookVerificationError(
      'E_WEBHOOK_HEADERS_MISSING',
      `webhook-timestamp must be Unix seconds; it is ${JSON.stringify(timestampText.slice(0, 40))}.`,
    );
  }
  // Space-separated per the specification; a repeated header, joined with ", " by Node and by `Headers`, is read
  // the same way.
  const signatures = signatureValues
    .flatMap((value) => value.split(/\s+/))
    .map((token) => token.replace(/,$/, ''))
    .filter((token) => token.length > 0);
  return { id, timestamp: Number(timestampText), signatures };
}

function rawValues(headers: WebhookHeaders, name: string): string[] {
  if (headers instanceof Headers) {
    const value = headers.get(name);
    return value === null ? [] : [value];
  }
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value : [value];
  }
  return [];
}

function all(headers: WebhookHeaders, name: string): string[] {
  return rawValues(headers, name)
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}

/** The header's value, or `undefined` when it is absent, empty, or given twice with different values. */
function single(headers: WebhookHeaders, name: string): string | undefined {
  const distinct = [...new Set(all(headers, name))];
  return distinct.length === 1 ? distinct[0] : undefined;
}

/** Every character compared whatever the first difference, so the time taken says nothing of where it is. */
function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}

function parseEvent(body: string, webhookId: string): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('E_WEBHOOK_PAYLOAD_INVALID', 'The signed body is not JSON.');
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    !('id' in event && typeof event.id === 'string') ||
    !('type' in event && typeof event.type === 'string') ||
    !('timestamp' in event && typeof event.timestamp === 'string') ||
    !('data' in event && typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data))
  ) {
    throw new WebhookVerificationError(
      'E_WEBHOOK_PAYLOAD_INVALID',
      'The signed body is not an event: it needs the strings `id`, `type` and `timestamp` and the object `data`.',
    );
  }
  if (event.id !== webhookId) {
    throw new WebhookVerificationError(
      'E_WEBHOOK_PAYLOAD_INVALID',
      `The event's id ${JSON.stringify(event.id)} differs from its webhook-id header ${JSON.stringify(webhookId)}.`,
    );
  }
  if (!isKnownWebhookEventType(event.type)) {
    throw new WebhookVerificationError(
      'E_WEBHOOK_UNKNOWN_EVENT_TYPE',
      `The event type ${JSON.stringify(event.type)} is not in this version of the contract; acknowledge it with a 2xx ` +
        'and ignore it.',
      { eventId: event.id, eventType: event.type },
    );
  }
  return event as WebhookEvent;
}
