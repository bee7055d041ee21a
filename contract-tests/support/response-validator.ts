/**
 * Checks a response against the bundled contract: the status is one the operation documents, the required
 * headers are there and every documented header is valid, the media type is declared for that status, and the
 * body matches its schema. Plus the envelope rules the contract states in prose: `error.requestId` equals
 * `x-request-id`, which echoes the one sent (except on an idempotent replay, which returns the original
 * response). Schemas are never restated here: each check compiles the bundle's own schema by its pointer.
 */
import type { ValidateFunction } from 'ajv';
import type { ContractDocument } from '../../mock/contract/document.ts';
import { createSchemaCompiler } from '../../mock/validation/schema-compiler.ts';
import { contractDocument, type ContractOperation, type RouteMatch } from './contract.ts';

// The kit's one way of compiling the bundle's schemas, shared with the mock and the unit tests.
const compiler = createSchemaCompiler(contractDocument as unknown as ContractDocument);
const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at this pointer of the bundle (`/components/schemas/Customer`). */
export function schemaAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = compiler.compile({ $ref: `#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

export function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`)
    .join('; ');
}

/** Header values are text; the contract types some as integers. */
export function headerValid(validate: ValidateFunction, raw: string): boolean {
  const accepts = (value: unknown): boolean => validate(value);
  const text = raw.trim();
  return accepts(raw) || (/^-?\d+$/.test(text) && accepts(Number(text)));
}

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

export function checkResponse(route: RouteMatch, observed: ObservedResponse): Verdict {
  const problems: string[] = [];
  const mediaType = (observed.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let json: unknown;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      json = JSON.parse(new TextDecoder().decode(observed.body));
    } catch {
      problems.push(`the body is declared ${mediaType} but is not JSON`);
    }
  }

  if (route.kind === 'operation') {
    problems.push(...checkOperationResponse(route.operation, observed, mediaType, json));
  } else {
    // Outside every operation the contract still promises its error envelope: 404 for an unknown path, 405 with
    // `Allow` for a known path and another method (see the `ErrorCode` catalogue).
    const expected = route.kind === 'unknown-path' ? 404 : 405;
    if (observed.status !== expected) problems.push(`expected ${expected} for a request outside the contract's operations, got ${observed.status}`);
    if (mediaType !== 'application/json') problems.push(`content type ${mediaType || '(none)'} is not application/json`);
    const envelope = schemaAt('/components/schemas/ErrorEnvelope');
    if (json !== undefined && !envelope(json)) problems.push(`body: ${describeErrors(envelope)}`);
    if (route.kind === 'method-not-allowed' && !observed.headers.get('allow')) problems.push('a 405 must list the allowed methods in Allow');
    const requestId = schemaAt('/components/schemas/RequestId');
    const header = observed.headers.get('x-request-id');
    if (header === null || !requestId(header)) problems.push('header x-request-id is missing or invalid');
  }

  problems.push(...checkEnvelopeRules(observed, json));
  return { problems, json };
}

function checkOperationResponse(
  operation: ContractOperation,
  observed: ObservedResponse,
  mediaType: string,
  json: unknown,
): string[] {
  const documented = operation.responses.get(observed.status);
  if (!documented) {
    return [`status ${observed.status} is not documented for ${operation.operationId} (documented: ${[...operation.responses.keys()].join(', ')})`];
  }
  const problems: string[] = [];
  for (const header of documented.headers) {
    const raw = observed.headers.get(header.name);
    if (raw === null) {
      if (header.required) problems.push(`required header ${header.name} is missing`);
      continue;
    }
    if (header.schemaPointer === undefined) continue;
    const validate = schemaAt(header.schemaPointer);
    if (!headerValid(validate, raw)) problems.push(`header ${header.name}: ${JSON.stringify(raw)} ${describeErrors(validate)}`);
  }
  if (documented.content.size === 0) {
    if (observed.body.length > 0) problems.push(`status ${observed.status} documents no body, but one was sent`);
    return problems;
  }
  if (!documented.content.has(mediaType)) {
    problems.push(`content type ${mediaType || '(none)'} is not documented for ${observed.status} (documented: ${[...documented.content.keys()].join(', ')})`);
    return problems;
  }
  const schemaPointer = documented.content.get(mediaType);
  if (schemaPointer === undefined) return problems;
  if (mediaType === 'application/json') {
    const validate = schemaAt(schemaPointer);
    if (json !== undefined && !validate(json)) problems.push(`body: ${describeErrors(validate)}`);
  } else {
    // A binary body (the PDF): its schema is `type: string, format: binary`, so what can be checked is its size.
    const schema = schemaFor(schemaPointer);
    if (typeof schema.maxLength === 'number' && observed.body.length > schema.maxLength) {
      problems.push(`body is ${observed.body.length} bytes, over the documented ${schema.maxLength}`);
    }
    if (observed.body.length === 0) problems.push('the body is empty');
  }
  return problems;
}

function checkEnvelopeRules(observed: ObservedResponse, json: unknown): string[] {
  const problems: string[] = [];
  const header = observed.headers.get('x-request-id');
  const replayed = observed.headers.get('idempotent-replayed') === 'true';
  // Only a valid id can be echoed: an invalid one is refused, and the answer carries a generated id instead.
  const echoable = observed.sentRequestId !== null && schemaAt('/components/schemas/RequestId')(observed.sentRequestId);
  if (header !== null && echoable && !replayed && header !== observed.sentRequestId) {
    problems.push(`x-request-id ${JSON.stringify(header)} does not echo the one sent (${JSON.stringify(observed.sentRequestId)})`);
  }
  const error = (json as { error?: { requestId?: unknown } } | undefined)?.error;
  if (error && typeof error.requestId === 'string' && header !== null && error.requestId !== header) {
    problems.push(`error.requestId ${JSON.stringify(error.requestId)} differs from x-request-id ${JSON.stringify(header)}`);
  }
  return problems;
}

function schemaFor(pointer: string): { maxLength?: number } {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], contractDocument) as {
    maxLength?: number;
  };
}
