/**
 * The shape of the contract's facts (contract-facts.ts reads them): on its own, with no import, so that the client
 * package, which carries generated/contract-facts.ts, does not carry the bundle reader with it. (The list of a
 * receiver's obligations is the one value here: what the reader asks the contract for, and what the type is made of.)
 */
export interface ContractFacts {
  apiKey: { format: string; prefixes: { sandbox: string; production: string } };
  /** A webhook signing secret's pattern (`whsec_` and base64): the mock's admin contract's `WebhookSecret`. */
  webhookSecret: { format: string };
  entitySuffixes: { LLC: string[]; CCorp: string[] };
  officerRoles: { required: string[]; singleHolder: string[] };
  errorDetails: { maxItems: number; maxFieldLength: number };
  /** The patterns of `x-request-id` (the RequestId schema) and `Idempotency-Key` (its parameter's schema). */
  headerFormats: { requestId: string; idempotencyKey: string };
  /** The `Idempotency-Key` parameter schema's length bounds. */
  idempotencyKeyLength: { min: number; max: number };
  /** The `limit` parameter every list takes: its default and bounds. */
  pageSize: { default: number; min: number; max: number };
  /** `Error.message`'s maxLength. */
  errorMessageMaxLength: number;
  /** `Document.sizeBytes`' maximum: the largest file an answer carries (a download), the largest body the contract sizes. */
  documentMaxBytes: number;
  /** The root `x-service-limits`: the limits the description states in words, as numbers. */
  limits: ServiceLimits;
  /**
   * The bounds of a traffic document (the mock's admin contract's `TrafficRecording`): the most exchanges it holds
   * (`maxItems` of its `exchanges`) and the most bytes it takes (`x-max-bytes`), which writers keep to and readers
   * refuse past.
   */
  traffic: { maxExchanges: number; maxBytes: number };
  /** The root `x-webhook-receiver`: what the description asks of a webhook receiver, each obligation `must` or `should`. */
  webhookReceiver: Record<ReceiverObligation, ObligationLevel>;
}

/** The obligations `x-webhook-receiver` names, each of which the contract must state. */
export const receiverObligations = [
  'acceptEveryEventType',
  'answerWithinAttemptTimeout',
  'refuseUnverified',
  'acceptAnyMatchingSignature',
  'acceptRepeats',
  'processRepeatsOnce',
  'acceptAdditions',
  'keepLateCopiesFromMovingBack',
] as const;

export type ReceiverObligation = (typeof receiverObligations)[number];

/** `must`: a receiver that does otherwise loses events or takes forged ones; `should`: advice. */
export type ObligationLevel = 'must' | 'should';

export interface ServiceLimits {
  requestBodyMaxBytes: number;
  /** The request line and headers together. */
  requestHeadersMaxBytes: number;
  idempotencyKeyRetentionSeconds: number;
  downloadUrlValiditySeconds: number;
  /** Per API key, by environment: requests per second, and the most let through in a burst after a quieter while. */
  rateLimits: Record<'sandbox' | 'production', { requestsPerSecond: number; burst: number }>;
  webhooks: {
    /** How long a receiver has to answer an attempt. */
    attemptTimeoutSeconds: number;
    /** The delay before each retry after a failed attempt (attempts 2, 3, …). */
    retryScheduleSeconds: number[];
    /** How far from its clock a receiver should accept a `webhook-timestamp`. */
    timestampToleranceSeconds: number;
  };
}
