/**
 * An error answer of the API or of the mock's admin routes: a status, one of the contracts' codes (the admin API's
 * are the API's and a few of its own), and for validation failures the details.
 */
import { contractFacts } from '../../generated/contract-facts.ts';
import type { ErrorCode, FieldError } from '../../generated/openapi.js';
import type { components as AdminComponents } from '../../generated/mock-admin/openapi.js';

export type AnyErrorCode = ErrorCode | AdminComponents['schemas']['AdminErrorCode'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: AnyErrorCode,
    message: string,
    readonly details?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The contract bounds `details` (Error.details maxItems) and each `field` (FieldError.field maxLength); a request can exceed both. */
const { maxItems: maxDetails, maxFieldLength } = contractFacts.errorDetails;

/** `more`: the validation stopped listing before it had found every problem, so there are more than `details`. */
export const validationFailed = (details: FieldError[], more = false): ApiError =>
  new ApiError(
    400,
    'E_VALIDATION_FAILED',
    more || details.length > maxDetails
      ? `The request is invalid; details holds the first ${Math.min(details.length, maxDetails)} problems found, and there are more.`
      : 'The request is invalid; see details.',
    details.slice(0, maxDetails).map((detail) =>
      detail.field.length <= maxFieldLength ? detail : { ...detail, field: `${detail.field.slice(0, maxFieldLength - 1)}…` },
    ),
  );

export const notFound = (what: string): ApiError => new ApiError(404, 'E_NOT_FOUND', `No ${what}.`);

/** Seconds a client is told to wait before retrying a 503: about as long as a store takes to be reached again. */
const retryAfterSeconds = 1;

/**
 * `503 E_SERVICE_UNAVAILABLE` with Retry-After: the store unavailable, a create whose storing is unconfirmed, a
 * formation another request is advancing, bodies past the budget. `headers` adds to Retry-After (`connection`).
 */
export const serviceUnavailable = (message = 'The service is briefly unavailable; retry after Retry-After.', headers: Record<string, string> = {}): ApiError =>
  new ApiError(503, 'E_SERVICE_UNAVAILABLE', message, undefined, { 'retry-after': String(retryAfterSeconds), ...headers });
