/**
 * The typed client of the Partner Formation API.
 *
 * Style: one method per operation, named by its operationId. A method resolves to `{ payload, meta }` — the
 * envelope's `payload`, typed from the contract, and the response's metadata (`x-request-id`,
 * `Idempotent-Replayed`, the `Idempotency-Key` sent, attempts) — and rejects with a `PartnerApiError` when the API
 * answers with its error envelope (see `errors.ts` for the other failures). Arguments, in this order, each only
 * when the operation has it:
 *
 *   1. its path and query parameters, in one object: `getCompany({ companyId })`, `listCustomers({ limit: 50 })`;
 *   2. its request body: `createCustomer({ email, … })`, `simulateCompanyFormation({ companyId }, { target })`;
 *   3. per-call options: `{ requestId?, signal? }`, and `idempotencyKey?` for the create operations.
 *
 * `raw` is the underlying openapi-fetch client, for whatever the methods do not cover; it shares the
 * authentication, request ids, idempotency keys and retries, and returns openapi-fetch's `{ data, error,
 * response }` with the envelope left as is.
 *
 * The document file (`downloadCompanyDocument`) is fetched from the signed `downloadUrl` that `getCompanyDocument`
 * returns, so its method takes that URL; the API key is not sent with it, since the URL carries the
 * authorization and may point anywhere the API said.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { operations } from '../generated/openapi.js';
import { assertValidApiKey } from './api-key.ts';
import { operationShape } from './contract-bundle.ts';
import type { OperationParams, Payload, RequestBody } from '../contract-model/operation-types.ts';
import type { ClientPaths, IsIdempotentCreate, OperationId } from './contract-types.ts';
import { describeCall, errorFromResponse, PartnerUnexpectedResponseError, type FailedCall } from './errors.ts';
import { isIdempotentCreate } from './idempotent-routes.ts';
import { operationRoutes } from './operation-routes.ts';
import { requestHeadersMiddleware } from './request-headers-middleware.ts';
import { readResponseMeta, type PartnerResult } from './response-meta.ts';
import { createRetryingFetch, type FetchLike, type RetryOptions } from './retrying-fetch.ts';

export interface PartnerClientOptions {
  /** `https://sandbox.api.partner-formation.example`, `https://api.partner-formation.example`, or a mock's URL. */
  baseUrl: string;
  /** A `dk_test_…` or `dk_live_…` key, sent raw in `Authorization`. */
  apiKey: string;
  /** The transport (default: the global `fetch`). */
  fetch?: FetchLike;
  retry?: RetryOptions;
  /** Makes the `x-request-id` of a call that names none (default: `req_` and a random UUID). */
  requestId?: () => string;
  /** Makes the `Idempotency-Key` of a create that names none (default: a random UUID). */
  idempotencyKey?: () => string;
}

export interface CallOptions {
  /** This call's `x-request-id`, e.g. your own trace id. */
  requestId?: string;
  signal?: AbortSignal;
}

export interface CreateCallOptions extends CallOptions {
  /**
   * This create's `Idempotency-Key`. Pass one tied to your own record (its id, or a UUID stored with it) to be
   * able to retry the create later, after a crash or a failure that outlasted the retries, without creating
   * twice. Without one, a fresh key is generated per call and reused by that call's retries only.
   */
  idempotencyKey?: string;
}

type ParamsArgument<Op> = keyof OperationParams<Op> extends never
  ? []
  : {} extends OperationParams<Op>
    ? [params?: OperationParams<Op>]
    : [params: OperationParams<Op>];
type BodyArgument<Op> = [RequestBody<Op>] extends [never] ? [] : [body: RequestBody<Op>];
type OptionsFor<Op> = IsIdempotentCreate<Op> extends true ? CreateCallOptions : CallOptions;

export type OperationArguments<Op> = [...ParamsArgument<Op>, ...BodyArgument<Op>, options?: OptionsFor<Op>];

/** The method of one operation, its signature computed from the contract's `operations`. */
export type OperationMethod<Op> = (...args: OperationArguments<Op>) => Promise<PartnerResult<Payload<Op>>>;

/** Served by `downloadDocument(downloadUrl)` instead, since the file is reached by its signed URL. */
type UrlOperationId = 'downloadCompanyDocument';
export type MethodOperationId = Exclude<OperationId, UrlOperationId>;

export type PartnerOperations = { [K in MethodOperationId]: OperationMethod<operations[K]> };

export type DownloadDocument = (downloadUrl: string, options?: CallOptions) => Promise<PartnerResult<Uint8Array>>;

export interface PartnerClient extends PartnerOperations {
  /** Fetches a document's PDF from the `downloadUrl` of `getCompanyDocument`. */
  downloadDocument: DownloadDocument;
  /** The same as `downloadDocument`, under the operation's id. */
  downloadCompanyDocument: DownloadDocument;
  /** The openapi-fetch client underneath. `Idempotency-Key` is optional in its types: one is added when absent. */
  raw: Client<ClientPaths>;
}

/** openapi-fetch's `request()` without the per-path types, for the one place that dispatches on a table. */
type UntypedRequest = (
  method: string,
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  assertValidApiKey(options.apiKey);
  const baseUrl = validBaseUrl(options.baseUrl);
  // Web Crypto, in every runtime the client targets (Node 19+, browsers, workers): no `node:` import.
  const newRequestId = options.requestId ?? (() => `req_${globalThis.crypto.randomUUID().replaceAll('-', '')}`);
  const newIdempotencyKey = options.idempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const transport = createRetryingFetch(options.fetch, options.retry);

  const raw = createClient<ClientPaths>({ baseUrl, fetch: transport });
  raw.use(
    requestHeadersMiddleware({ apiKey: options.apiKey, requestId: newRequestId, idempotencyKey: newIdempotencyKey }),
  );
  const request = raw.request.bind(raw) as unknown as UntypedRequest;

  function operationMethod(operationId: MethodOperationId) {
    const [method, path] = operationRoutes[operationId];
    const shape = operationShape(method, path);
    const createsWithKey = isIdempotentCreate(method, path);

    return async (...args: unknown[]): Promise<PartnerResult<unknown>> => {
      let next = 0;
      const params = (shape.takesParameters ? args[next++] : undefined) ?? {};
      const body = shape.takesBody ? args[next++] : undefined;
      const callOptions = (args[next] ?? {}) as CreateCallOptions;

      const pathParams: Record<string, unknown> = {};
      const query: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
        (shape.pathParameters.includes(name) ? pathParams : query)[name] = value;
      }
      const requestId = callOptions.requestId ?? newRequestId();
      const idempotencyKey = createsWithKey ? (callOptions.idempotencyKey ?? newIdempotencyKey()) : undefined;
      const header = idempotencyKey
        ? { 'x-request-id': requestId, 'Idempotency-Key': idempotencyKey }
        : { 'x-request-id': requestId };

      const { data, error, response } = await request(method, path, {
        params: { path: pathParams, query, header },
        ...(shape.takesBody ? { body } : {}),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      });
      const call: FailedCall = { method: method.toUpperCase(), url: response.url || path, requestId, idempotencyKey };
      if (!response.ok) throw errorFromResponse(error, response, call);
      if (typeof data !== 'object' || data === null || !('payload' in data)) {
        throw new PartnerUnexpectedResponseError(data, response, call, 'without the success envelope');
      }
      return { payload: data.payload, meta: readResponseMeta(response, { requestId, idempotencyKey }) };
    };
  }

  const downloadDocument: DownloadDocument = async (downloadUrl, callOptions = {}) => {
    const requestId = callOptions.requestId ?? newRequestId();
    const fileRequest = new Request(new URL(downloadUrl, baseUrl), {
      headers: { Accept: 'application/pdf', 'x-request-id': requestId },
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
    const response = await transport(fileRequest);
    if (!response.ok) throw errorFromResponse(await readErrorBody(response), response, describeCall(fileRequest));
    const payload = new Uint8Array(await response.arrayBuffer());
    return { payload, meta: readResponseMeta(response, { requestId, idempotencyKey: undefined }) };
  };

  const methods = Object.fromEntries(
    (Object.keys(operationRoutes) as OperationId[])
      .filter((id): id is MethodOperationId => id !== 'downloadCompanyDocument')
      .map((id) => [id, operationMethod(id)]),
  ) as unknown as PartnerOperations;

  return { ...methods, downloadDocument, downloadCompanyDocument: downloadDocument, raw };
}

function validBaseUrl(baseUrl: unknown): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError(`createPartnerClient: \`baseUrl\` must be an absolute http(s) URL, not ${String(baseUrl)}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`createPartnerClient: \`baseUrl\` must be an http(s) URL, not ${url.protocol.slice(0, -1)}.`);
  }
  return url.href.replace(/\/+$/, '');
}

async function readErrorBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
