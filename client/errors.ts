/**
 * What a call can fail with, one class per situation so that `instanceof` tells them apart:
 *
 * - `PartnerApiError`: the API answered with its error envelope. Branch on `code` (the contract's `ErrorCode`),
 *   never on `message`.
 * - `PartnerUnexpectedResponseError`: something answered, but not with the contract's envelope (a proxy's HTML
 *   502, a truncated body). There is no `code` to branch on, only the status.
 * - `PartnerNetworkError`: no response at all, after every attempt (connection refused or reset, DNS failure).
 *
 * An aborted call rejects with the abort reason unchanged, as `fetch` does.
 */
import type { components } from '../generated/openapi.js';
import { parseRetryAfterSeconds } from './retry-after.ts';

export type ErrorCode = components['schemas']['ErrorCode'];
export type FieldError = components['schemas']['FieldError'];
type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/** Which call failed, for the error message and for retrying a create later with the same key. */
export interface FailedCall {
  method: string;
  url: string;
  /** The `x-request-id` sent. */
  requestId: string | undefined;
  /** The `Idempotency-Key` sent; reuse it to retry the same create later. */
  idempotencyKey: string | undefined;
}

export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  readonly status: number;
  readonly code: ErrorCode;
  /** The error's `requestId` (equal to the response's `x-request-id`): quote it to support. */
  readonly requestId: string;
  /** Every problem found; empty unless `code` is `E_VALIDATION_FAILED`. */
  readonly details: FieldError[];
  /** `Retry-After` in seconds, when the response carried it. */
  readonly retryAfter: number | undefined;
  readonly idempotencyKey: string | undefined;
  readonly response: Response;

  constructor(envelope: ErrorEnvelope, response: Response, call: FailedCall) {
    super(envelope.error.message);
    this.status = response.status;
    this.code = envelope.error.code;
    this.requestId = envelope.error.requestId ?? response.headers.get('x-request-id') ?? call.requestId ?? '';
    this.details = envelope.error.details ?? [];
    this.retryAfter = parseRetryAfterSeconds(response.headers);
    this.idempotencyKey = call.idempotencyKey;
    this.response = response;
  }
}

export class PartnerUnexpectedResponseError extends Error {
  override readonly name = 'PartnerUnexpectedResponseError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** The body as received: parsed JSON when it was JSON, text otherwise. */
  readonly body: unknown;
  readonly response: Response;

  constructor(body: unknown, response: Response, call: FailedCall, why: string) {
    super(`${call.method} ${call.url} answered ${response.status}, ${why}.`);
    this.status = response.status;
    this.requestId = response.headers.get('x-request-id') ?? call.requestId;
    this.idempotencyKey = call.idempotencyKey;
    this.body = body;
    this.response = response;
  }
}

export class PartnerNetworkError extends Error {
  override readonly name = 'PartnerNetworkError';
  readonly attempts: number;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;

  constructor(cause: unknown, attempts: number, call: FailedCall) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${call.method} ${call.url} failed after ${attempts} attempt(s) with no response: ${reason}`, { cause });
    this.attempts = attempts;
    this.requestId = call.requestId;
    this.idempotencyKey = call.idempotencyKey;
  }
}

export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

/** The error to throw for a non-2xx response, whose body openapi-fetch has already read (JSON, or text). */
export function errorFromResponse(body: unknown, response: Response, call: FailedCall): Error {
  return isErrorEnvelope(body)
    ? new PartnerApiError(body, response, call)
    : new PartnerUnexpectedResponseError(body, response, call, 'without the error envelope');
}

export function describeCall(request: Request): FailedCall {
  return {
    method: request.method,
    url: request.url,
    requestId: request.headers.get('x-request-id') ?? undefined,
    idempotencyKey: request.headers.get('idempotency-key') ?? undefined,
  };
}
