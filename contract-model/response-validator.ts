/**
 * Checks a response against its operation in the contract: the status is documented, the required headers are
 * there and every documented header is valid, the media type is documented for that status, and the body
 * matches it (a JSON body its schema, a binary one its size). The mock runs it on every answer before it
 * leaves, the contract suite on every answer it receives, so that both hold a response to the same reading.
 */
import { deref, type ContractDocument, type JsonObject } from './document.ts';
import { compileHeadersCheck } from './headers-check.ts';
import type { ContractOperation, ContractResponse } from './operations.ts';
import { describeSchemaErrors } from './schema-errors.ts';
import type { SchemaCompiler } from './schema-compiler.ts';

export interface CheckedResponse {
  status: number;
  /** By lower-case name. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body as sent; absent or empty when there is none. */
  body?: string | Uint8Array;
  /** The body's JSON value; `undefined` when there is none or it is not JSON. */
  json?: unknown;
}

export type ResponseValidator = (response: CheckedResponse) => string[];

export function compileResponseValidator(
  document: ContractDocument,
  operation: ContractOperation,
  compiler: SchemaCompiler,
): ResponseValidator {
  const byStatus = new Map(
    [...operation.responses].map(([status, response]) => [status, compileDocumentedResponse(document, response, compiler)]),
  );
  const documented = [...operation.responses.keys()].join(', ');
  return (response) => {
    const status = String(response.status);
    const check = byStatus.get(status) ?? byStatus.get(`${status[0]}XX`) ?? byStatus.get('default');
    if (!check) return [`status ${status} is not documented for ${operation.operationId} (documented: ${documented})`];
    return check(response);
  };
}

/** The `error.code` of an envelope, when the body is one that carries it. */
function errorCodeOf(json: unknown): string | undefined {
  const code = (json as { error?: { code?: unknown } } | null | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether a media type's body is read as JSON. */
export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** `application/json` from `Application/JSON; charset=utf-8`; empty when there is none. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType?.split(';')[0] ?? '').trim().toLowerCase();
}

type BodyCheck = (problems: string[], response: CheckedResponse) => void;

function compileDocumentedResponse(
  document: ContractDocument,
  documented: ContractResponse,
  compiler: SchemaCompiler,
): (response: CheckedResponse) => string[] {
  const checkHeaders = compileHeadersCheck(document, documented.headers, compiler);
  const bodies = new Map(
    [...documented.content].map(([mediaType, schema]) => [mediaType, compileBodyCheck(document, mediaType, schema, compiler)]),
  );
  const mediaTypes = [...documented.content.keys()].join(', ');
  return (response) => {
    const problems: string[] = [];
    checkHeaders(response.headers, problems, errorCodeOf(response.json));
    if (bodies.size === 0) {
      if (response.body !== undefined && response.body.length > 0) problems.push(`status ${response.status} documents no body, but one was sent`);
      return problems;
    }
    const mediaType = mediaTypeOf(response.headers['content-type']);
    const checkBody = bodies.get(mediaType);
    if (checkBody) checkBody(problems, response);
    else problems.push(`content type ${mediaType || '(none)'} is not documented for ${response.status} (documented: ${mediaTypes})`);
    return problems;
  };
}

function compileBodyCheck(
  document: ContractDocument,
  mediaType: string,
  schema: JsonObject | undefined,
  compiler: SchemaCompiler,
): BodyCheck {
  // A stream of events is written after its head, as the events come: there is no body to check when it is finalised.
  if (schema === undefined || mediaType === 'text/event-stream') return () => undefined;
  if (isJsonMediaType(mediaType)) {
    const validate = compiler.compile(schema);
    return (problems, { json }) => {
      if (json === undefined) problems.push(`the body is declared ${mediaType} but is not JSON`);
      else if (!validate(json)) problems.push(...describeSchemaErrors('body', validate.errors, validate.more));
    };
  }
  // A binary body (the PDF): its schema is `type: string, format: binary`, so what can be checked is its size.
  const { maxLength } = deref(document, schema);
  return (problems, { body }) => {
    const size = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (size === 0) problems.push('the body is empty');
    else if (typeof maxLength === 'number' && size > maxLength) problems.push(`body is ${size} bytes, over the documented ${maxLength}`);
  };
}
