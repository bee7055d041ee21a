/**
 * One contract's verdict on a recorded exchange: its request checked as the mock checks one (routed by method and
 * path, its body's media type and JSON read, its parameters and body validated: mock/pipeline/), its answer as the
 * response check does (contract-model/response-validator.ts, which the mock runs on its answers and the contract
 * suite on a target's). Nothing is written again: the router, the validators and the response check are the ones
 * the mock and the suite run. What a recording did not keep whole (a body or a query cut) is not checked, and says
 * why; nothing a recorded exchange holds makes the check throw.
 */
import type { ContractDocument } from '../../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../../contract-model/operations.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { compileResponseValidator, isJsonMediaType, mediaTypeOf } from '../../contract-model/response-validator.ts';
import { createRouter } from '../../contract-model/router.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { readJsonText } from '../../mock/http/json-text.ts';
import { compileRequestValidator } from '../../mock/pipeline/request-validator.ts';
import { locateAnswerProblem } from './answer-problems.ts';
import type { TrafficExchange } from './traffic-file.ts';

/** A problem at a place of the exchange: `in` the body, a parameter (`query`, `path`, `header`), the `status`. */
export interface Problem {
  in: string;
  /** A JSON Pointer into the body, or `/` and the parameter's or header's name; empty for the whole. */
  field: string;
  /** The field error code, for a request (the contract's FieldErrorCode or the mock's refusal's ErrorCode). */
  code?: string;
  message: string;
}

export type SideVerdict = { kind: 'passes' } | { kind: 'fails'; problems: Problem[] } | { kind: 'unchecked'; why: string };

export interface ExchangeVerdict {
  /** The operation this contract routes the request to. */
  operationId?: string;
  request: SideVerdict;
  answer: SideVerdict;
}

export type ExchangeCheck = (exchange: TrafficExchange) => ExchangeVerdict;

const passes: SideVerdict = { kind: 'passes' };
const fails = (problems: Problem[]): SideVerdict => ({ kind: 'fails', problems });
const unchecked = (why: string): SideVerdict => ({ kind: 'unchecked', why });

/** `maxBodyBytes`: the contract's request body limit, past which the mock refuses a body unread (413). */
export function createExchangeCheck(contract: ContractDocument, maxBodyBytes: number): ExchangeCheck {
  const operations = listOperations(contract);
  const route = createRouter(operations);
  const compiler = schemaCompilerOf(contract);
  const requestValidatorOf = perOperation(operations, (operation) => compileRequestValidator(contract, operation, compiler));
  const answerValidatorOf = perOperation(operations, (operation) => compileResponseValidator(contract, operation, compiler));
  return (exchange) => {
    const match = route(exchange.request.method, exchange.request.path);
    if (match.kind === 'not-found') return { request: fails([{ in: 'path', field: '', code: 'E_NOT_FOUND', message: `No operation at ${exchange.request.path}.` }]), answer: unchecked('no operation') };
    if (match.kind === 'method-not-allowed') {
      return { request: fails([{ in: 'path', field: '', code: 'E_METHOD_NOT_ALLOWED', message: `${exchange.request.method} is not allowed here; allowed: ${match.allow.join(', ')}.` }]), answer: unchecked('no operation') };
    }
    const { operation, pathParams } = match;
    return {
      operationId: operation.operationId,
      request: guarded(() => checkRequest(exchange, operation, pathParams, requestValidatorOf(operation.operationId)!, maxBodyBytes)),
      answer: guarded(() => checkAnswer(exchange, answerValidatorOf(operation.operationId)!)),
    };
  };
}

/** A value that defeats a check (nested past the stack) is a verdict too: it could not be checked. */
function guarded(check: () => SideVerdict): SideVerdict {
  try {
    return check();
  } catch (error) {
    return unchecked(`could not be checked (${(error as Error).message})`);
  }
}

/**
 * How a recording shows a credential it masked (mock/journal/captured-message.ts, contract-model/credentials.ts): a
 * value named as a credential as `[masked]`, a key as `dk_test_…wxyz`. What held one is not what was sent: a download
 * URL's signature, a key pasted into a path, a request id made of a secret.
 */
const maskedCredential = /\[masked\]|dk_(?:test|live)_…/;

function checkRequest(exchange: TrafficExchange, operation: ContractOperation, pathParams: Record<string, string>, validate: ReturnType<typeof compileRequestValidator>, maxBodyBytes: number): SideVerdict {
  const { request } = exchange;
  if (request.queryTruncated) return unchecked('its query was cut when recorded');
  if (maskedCredential.test(request.path) || maskedCredential.test(request.query) || Object.values(request.headers).some((value) => maskedCredential.test(value))) {
    return unchecked('a credential in its path, query or headers was masked when recorded');
  }
  const body = operation.requestBody === undefined ? { kind: 'none' as const } : readBody(request, maxBodyBytes);
  if (body.kind === 'unchecked') return body;
  if (body.kind === 'refused') return fails([body.problem]);
  const verdict = validate({ pathParams, query: new URLSearchParams(request.query), rawQuery: request.query, headers: request.headers, body: body.kind === 'json' ? body.value : undefined });
  return verdict.ok ? passes : fails(verdict.details.map((detail) => ({ in: detail.in, field: detail.field, code: detail.code, message: detail.message })));
}

type ReadBody = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'refused'; problem: Problem } | { kind: 'unchecked'; why: string };

/** The body as the mock reads it before validation: 415 for another media type, 413 past the limit, 400 when not JSON. */
function readBody(request: TrafficExchange['request'], maxBodyBytes: number): ReadBody {
  const { body } = request;
  if (body === null) return { kind: 'none' };
  if (body.bytes > maxBodyBytes) return { kind: 'refused', problem: { in: 'body', field: '', code: 'E_PAYLOAD_TOO_LARGE', message: `The body is over ${maxBodyBytes} bytes.` } };
  if (body.truncated) return { kind: 'unchecked', why: 'its body was not kept whole when recorded' };
  if (mediaTypeOf(request.headers['content-type']) !== 'application/json') {
    return { kind: 'refused', problem: { in: 'header', field: '/content-type', code: 'E_UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.' } };
  }
  const read = body.text === null ? ({ kind: 'malformed', problem: 'it is not UTF-8 text' } as const) : readJsonText(Buffer.from(body.text));
  if (read.kind === 'malformed') return { kind: 'refused', problem: { in: 'body', field: '', code: 'E_MALFORMED_JSON', message: `The body is not valid JSON: ${read.problem}.` } };
  return read;
}

function checkAnswer(exchange: TrafficExchange, validate: ReturnType<typeof compileResponseValidator>): SideVerdict {
  const { answer } = exchange;
  if (answer === null) return unchecked('nothing was answered');
  if (answer.body?.truncated) return unchecked('its body was not kept whole when recorded');
  // A HEAD answer is its GET's head without the body the response check would look for.
  if (exchange.request.method === 'HEAD') return unchecked('a HEAD answer carries no body');
  const problems = validate({ status: answer.status, headers: answer.headers, ...answerBody(answer) });
  return problems.length === 0 ? passes : fails(problems.map(locateAnswerProblem));
}

/**
 * The body as the response check reads it: text (and its JSON, for a JSON media type), or, for a body kept by its
 * size only (a PDF), that size, which is all the check reads of a binary body.
 */
function answerBody(answer: NonNullable<TrafficExchange['answer']>): { body?: string | Uint8Array; json?: unknown } {
  const { body } = answer;
  if (body === null) return {};
  if (body.text === null) return { body: { byteLength: body.bytes, length: body.bytes } as Uint8Array };
  if (!isJsonMediaType(mediaTypeOf(answer.headers['content-type']))) return { body: body.text };
  try {
    return { body: body.text, json: JSON.parse(body.text) };
  } catch {
    return { body: body.text };
  }
}
