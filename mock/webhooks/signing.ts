import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const userAgent = 'PartnerFormationMock-Webhooks/1.0';

/**
 * The request headers of one attempt, the body signed as the exact bytes that will be sent: with every secret given
 * (during a rotation the old and the new one), space-separated, so that a receiver holding either verifies.
 */
export function signedHeaders(secrets: readonly string[], eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}

/** Throws on a secret that is not `whsec_` + base64, so a misconfiguration fails at startup, not per delivery. */
export function assertSigningSecret(secret: string): void {
  new Webhook(secret);
}

/** Whether a secret given by a person (the sandbox's, for the relay) is one Standard Webhooks can sign with. */
export function isSigningSecret(secret: string): boolean {
  try {
    assertSigningSecret(secret);
    return true;
  } catch {
    return false;
  }
}

/** A secret as Standard Webhooks wants it: `whsec_` and base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
