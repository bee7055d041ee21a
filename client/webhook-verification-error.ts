/**
 * Why a webhook delivery was refused, as a code to branch on (and to log or count) and a message for humans.
 *
 * | Code | Meaning | Answer |
 * |---|---|---|
 * | `E_WEBHOOK_HEADERS_MISSING` | `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent or unusable. | 400 |
 * | `E_WEBHOOK_SIGNATURE_INVALID` | No signature matches: altered body, wrong secret, or a parsed-and-reserialised body. | 400/401 |
 * | `E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE` | Genuinely signed, but too old or too far in the future: a replay, or clock skew. | 400 |
 * | `E_WEBHOOK_PAYLOAD_INVALID` | Genuinely signed, but the body is not an event (not JSON, fields missing, id ≠ `webhook-id`). | 400 |
 * | `E_WEBHOOK_UNKNOWN_EVENT_TYPE` | Genuinely signed event of a type newer than this contract. | **2xx** (the contract says so) |
 */
export type WebhookVerificationErrorCode =
  | 'E_WEBHOOK_SIGNATURE_INVALID'
  | 'E_WEBHOOK_TIMESTAMP_OUT_OF_TOLERANCE'
  | 'E_WEBHOOK_HEADERS_MISSING'
  | 'E_WEBHOOK_UNKNOWN_EVENT_TYPE'
  | 'E_WEBHOOK_PAYLOAD_INVALID';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly code: WebhookVerificationErrorCode;
  /** Set with `E_WEBHOOK_UNKNOWN_EVENT_TYPE`, for logging and deduplication. */
  readonly eventId: string | undefined;
  /** Set with `E_WEBHOOK_UNKNOWN_EVENT_TYPE`. */
  readonly eventType: string | undefined;

  constructor(
    code: WebhookVerificationErrorCode,
    message: string,
    event: { eventId?: string; eventType?: string } = {},
  ) {
    super(message);
    this.code = code;
    this.eventId = event.eventId;
    this.eventType = event.eventType;
  }
}
