/**
 * Checks a response the suite received. Against its operation, with the kit's response validator (the one the
 * mock runs on its own answers): status, headers, media type and body as the contract documents them. Outside
 * every operation, against the error envelope the contract promises there: `404`, or `405` with `Allow`. And
 * everywhere, the envelope rules the contract states in prose: `x-request-id` echoes the one sent (unless it holds
 * a credential), and an error's `requestId` equals it (except in an idempotent replay, whose body is the
 * original's, naming the original request). A request refused before routing is held to what *Refusals before
 * routing* says of every such answer instead.
 */
import { holdsCredential } from '../../contract-model/credentials.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { compileResponseValidator, isJsonMediaType, mediaTypeOf } from '../../contract-model/response-validator.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { compiler, contractDocument, contractOperations, descriptionTable, type SuiteOperation, type SuiteRoute } from './contract.ts';

const validatorOf = perOperation(contractOperations, (operation) => compileResponseValidator(contractDocument, operation, compiler));

export interface ObservedResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** The `x-request-id` the request carried, if any. */
  sentRequestId: string | null;
}

export interface Verdict {
  problems: string[];
  /** The JSON body, when there was one. */
  json: unknown;
}

export function checkResponse(route: SuiteRoute, observed: ObservedResponse): Verdict {
  const mediaType = mediaTypeOf(observed.headers.get('content-type') ?? undefined);
  const json = isJsonMediaType(mediaType) ? parseJson(observed.body) : undefined;
  const problems =
    route.kind === 'operation'
      ? checkOperationResponse(route.operation, observed, json)
      : checkOutsideOperations(route, observed, mediaType, json);
  problems.push(...checkEnvelopeRules(observed, json));
  return { problems, json };
}

function checkOperationResponse(operation: SuiteOperation, observed: ObservedResponse, json: unknown): string[] {
  const validate = validatorOf(operation.operationId);
  if (!validate) throw new Error(`${operation.operationId} is not an operation of the bundle the suite reads.`);
  return validate({ status: observed.status, headers: Object.fromEntries(observed.headers), body: observed.body, json });
}

function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}

/** Outside every operation the contract still promises its error envelope (see the `ErrorCode` catalogue). */
function checkOutsideOperations(route: SuiteRoute, observed: ObservedResponse, mediaType: string, json: unknown): string[] {
  const problems: string[] = [];
  const expected = route.kind === 'not-found' ? 404 : 405;
  if (observed.status !== expected) problems.push(`expected ${expected} for a request outside the contract's operations, got ${observed.status}`);
  if (mediaType !== 'application/json') problems.push(`content type ${mediaType || '(none)'} is not application/json`);
  const envelope = compiler.component('ErrorEnvelope');
  if (mediaType === 'application/json' && json === undefined) problems.push(`the body is declared ${mediaType} but is not JSON`);
  if (json !== undefined && !envelope(json)) problems.push(...describeSchemaErrors('body', envelope.errors, envelope.more));
  if (route.kind === 'method-not-allowed' && !observed.headers.get('allow')) problems.push('a 405 must list the allowed methods in Allow');
  const header = observed.headers.get('x-request-id');
  if (header === null || !compiler.component('RequestId')(header)) problems.push('header x-request-id is missing or invalid');
  return problems;
}

function checkEnvelopeRules(observed: ObservedResponse, json: unknown): string[] {
  const problems: string[] = [];
  const header = observed.headers.get('x-request-id');
  const replayed = observed.headers.get('idempotent-replayed') === 'true';
  // Only a valid id can be echoed: an invalid one is refused, and the answer carries a generated id instead; so
  // does one that holds a credential, never echoed.
  const echoable = observed.sentRequestId !== null && compiler.component('RequestId')(observed.sentRequestId) && !holdsCredential(observed.sentRequestId);
  if (header !== null && echoable && header !== observed.sentRequestId) {
    problems.push(`x-request-id ${JSON.stringify(header)} does not echo the one sent (${JSON.stringify(observed.sentRequestId)})`);
  }
  const error = (json as { error?: { requestId?: unknown } } | undefined)?.error;
  if (error && typeof error.requestId === 'string' && header !== null && !replayed && error.requestId !== header) {
    problems.push(`error.requestId ${JSON.stringify(error.requestId)} differs from x-request-id ${JSON.stringify(header)}`);
  }
  return problems;
}

/** The *Refusals before routing* of the contract's description: each status and the code it comes with. */
export const refusalsBeforeRouting: readonly { status: number; code: string }[] = descriptionTable(['Status', 'Code', 'When']).map(
  (row) => ({ status: Number(row.Status), code: (row.Code ?? '').replaceAll('`', '') }),
);

export interface ObservedRefusal {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /**
   * `operation`: the 413 of a body over 1 MiB, which its operation documents (the one refusal of the table that
   * carries `RateLimit-*`), so it is also held to that operation's response. `before-routing`: every other.
   */
  answeredBy: { kind: 'before-routing' } | { kind: 'operation'; route: SuiteRoute };
}

/**
 * What *Refusals before routing* promises of each such answer: a status and code of its table, the envelope with
 * `payload: null`, `Content-Type: application/json`, a valid `x-request-id` that is the error's `requestId`,
 * `Connection: close`, and no `RateLimit-*` headers except on the 413 of a body over 1 MiB. Whether the id echoes
 * the one sent depends on how far the request could be read: the tests that send one say so themselves.
 */
export function checkRefusal(observed: ObservedRefusal): Verdict {
  const mediaType = mediaTypeOf(observed.headers.get('content-type') ?? undefined);
  const json = isJsonMediaType(mediaType) ? parseJson(observed.body) : undefined;
  const problems: string[] = [];
  const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (!refusalsBeforeRouting.some((row) => row.status === observed.status && row.code === code)) {
    problems.push(`${observed.status} ${String(code)} is not a refusal of the table under *Refusals before routing*`);
  }
  if (mediaType !== 'application/json') problems.push(`content type ${mediaType || '(none)'} is not application/json`);
  const envelope = compiler.component('ErrorEnvelope');
  if (json === undefined) problems.push('the body is not JSON');
  else if (!envelope(json)) problems.push(...describeSchemaErrors('body', envelope.errors, envelope.more));
  const header = observed.headers.get('x-request-id');
  if (header === null || !compiler.component('RequestId')(header)) problems.push('header x-request-id is missing or invalid');
  const requestId = (json as { error?: { requestId?: unknown } } | undefined)?.error?.requestId;
  if (header !== null && requestId !== header) problems.push(`error.requestId ${JSON.stringify(requestId)} differs from x-request-id ${JSON.stringify(header)}`);
  const connection = (observed.headers.get('connection') ?? '').split(',').map((token) => token.trim().toLowerCase());
  if (!connection.includes('close')) problems.push(`Connection is ${JSON.stringify(observed.headers.get('connection'))}, not close`);
  if (observed.answeredBy.kind === 'operation') {
    problems.push(...checkResponse(observed.answeredBy.route, { ...observed, sentRequestId: null }).problems);
  } else {
    const rateLimit = [...observed.headers.keys()].filter((name) => name.toLowerCase().startsWith('ratelimit-'));
    if (rateLimit.length > 0) problems.push(`a refusal before routing carries ${rateLimit.join(', ')}`);
  }
  return { problems, json };
}
