/** An error answer of the API: a status, one of the contract's codes, and for validation failures the details. */
import type { ErrorCode, FieldError } from '../../generated/openapi.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const validationFailed = (details: FieldError[]): ApiError =>
  new ApiError(400, 'E_VALIDATION_FAILED', 'The request is invalid; see details.', details);

export const notFound = (what: string): ApiError => new ApiError(404, 'E_NOT_FOUND', `No ${what}.`);
