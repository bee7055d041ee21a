import { Webhook } from 'standardwebhooks';

export const userAgent = 'PartnerFormationMock-Webhooks/1.0';

/** Builds the request headers of one attempt; the body is signed as the exact bytes that will be sent. */
export type AttemptSigner = (eventId: string, body: string, at: Date) => Record<string, string>;

/** Throws on a secret that is not `whsec_` + base64, so a misconfiguration fails at startup, not per delivery. */
export function createSigner(secret: string): AttemptSigner {
  const webhook = new Webhook(secret);
  return (eventId, body, at) => ({
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhook.sign(eventId, at, body),
  });
}
