/**
 * The public API of the Partner Formation API client: the typed client, its errors, pagination, the webhook
 * verifier, and the contract's types (a named type per schema, and each operation's payload, body and parameters
 * by its operationId). Everything else under `client/` is internal.
 */
export {
  createPartnerClient,
  type CallOptions,
  type CreateCallOptions,
  type DownloadDocument,
  type MethodOperationId,
  type OperationArguments,
  type OperationMethod,
  type PartnerClient,
  type PartnerClientOptions,
  type PartnerOperations,
} from './partner-client.ts';
export type { OperationId, OperationParams, Payload, RequestBody } from './contract-types.ts';
// Generated from the contract's components.schemas: Customer, Company, CompanyCreateRequest, …
export type * from '../generated/schema-types.ts';
export type { PartnerResult, ResponseMeta } from './response-meta.ts';
export type { FetchLike, RetryOptions } from './retrying-fetch.ts';
export {
  PartnerApiError,
  PartnerNetworkError,
  PartnerUnexpectedResponseError,
  type ErrorCode,
  type FieldError,
} from './errors.ts';
export { paginate } from './paginate.ts';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './verify-webhook.ts';
export { WebhookVerificationError, type WebhookVerificationErrorCode } from './webhook-verification-error.ts';
export type { WebhookEvent, WebhookEventOf, WebhookEventType } from './webhook-events.ts';
