/**
 * Forced answers asked for by the request (`Prefer: code=…, example=…`, as with Prism): the operation answers with
 * that documented response instead of running. Its example is made consistent with the request: the error's
 * `requestId` is this request's, an id the request names (a path parameter, a body field) replaces the example's
 * under the same name at the top of the payload, and headers the response requires are sent at their example
 * values beside those every answer carries (the request id, the rate-limit headers). Nothing runs and nothing is
 * stored: the step comes before the idempotency key is taken, so a forced answer is never replayed. A choice the
 * operation does not document is refused with 400 E_VALIDATION_FAILED naming the documented ones.
 *
 * It comes after authentication (a partner's key is still needed) and before the request's validation: a team can
 * see how its screen renders an answer without first writing a valid request for it.
 */
import { validationFailed } from '../http/api-error.ts';
import type { Exchange, Reply } from '../pipeline/exchange.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { respond } from '../pipeline/reply.ts';
import type { DocumentedAnswer, OperationAnswers } from '../../contract-model/documented-answers.ts';
import { readPrefer, type ForcedChoice } from './prefer-header.ts';

export type AnswersOf = (operationId: string) => OperationAnswers | undefined;

export function forceAnswers(answersOf: AnswersOf): Step {
  return async (exchange, next) => {
    const operation = exchange.operation;
    const reading = readPrefer(exchange.request.headers.prefer);
    if (reading.kind === 'none' || !operation) return next();
    if (reading.kind === 'problem') return refuse(exchange, reading.problem);
    const problem = forceAnswer(exchange, operation.operationId, answersOf(operation.operationId), reading.choice);
    if (problem) refuse(exchange, problem);
  };
}

/**
 * Answers the exchange with the documented answer a choice names, made consistent with this request, and marks it
 * forced; when the operation documents none such, answers nothing and says why.
 */
export function forceAnswer(exchange: Exchange, operationId: string, documented: OperationAnswers | undefined, choice: ForcedChoice): string | undefined {
  const chosen = choose(documented?.answers ?? [], choice);
  if (!chosen) return notDocumented(operationId, documented, choice);
  exchange.forced = { status: chosen.status, example: chosen.example };
  respond(exchange, consistentWith(exchange, chosen));
  return undefined;
}

/** Why a choice names no answer the operation documents; undefined when it names one. */
export function problemWith(operationId: string, documented: OperationAnswers | undefined, choice: ForcedChoice): string | undefined {
  return choose(documented?.answers ?? [], choice) ? undefined : notDocumented(operationId, documented, choice);
}

function notDocumented(operationId: string, documented: OperationAnswers | undefined, choice: ForcedChoice): string {
  return `${describeChoice(choice)} is not among the answers ${operationId} documents: ${describeAnswers(documented ?? { answers: [], withoutExample: [] })}.`;
}

/** The first documented answer that matches every part of the choice. */
function choose(answers: readonly DocumentedAnswer[], choice: ForcedChoice): DocumentedAnswer | undefined {
  return answers.find((answer) => (choice.code === undefined || answer.status === choice.code) && (choice.example === undefined || answer.example === choice.example));
}

function refuse(exchange: Exchange, message: string): void {
  respond(exchange, validationFailed([{ in: 'header', field: '/Prefer', code: 'E_NOT_ALLOWED_VALUE', message }]));
}

function describeChoice(choice: ForcedChoice): string {
  return [choice.code === undefined ? undefined : `code=${choice.code}`, choice.example === undefined ? undefined : `example=${choice.example}`].filter(Boolean).join(', ');
}

/** "202 (llcCompanyAccepted), 400 (malformedJson, validationFailed)": what a Prefer header may name. */
function describeAnswers({ answers, withoutExample }: OperationAnswers): string {
  const byStatus = new Map<number, string[]>();
  for (const { status, example } of answers) byStatus.set(status, [...(byStatus.get(status) ?? []), example]);
  const listed = [...byStatus].map(([status, names]) => `${status} (${names.join(', ')})`);
  const unnamed = withoutExample.length === 0 ? '' : `; ${withoutExample.join(', ')} documented without an example to answer with`;
  return `${listed.join(', ')}${unnamed}`;
}

/** The example as this request would have had it answered. */
function consistentWith(exchange: Exchange, chosen: DocumentedAnswer): Reply {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(chosen.headers)) if (!(name in exchange.commonHeaders) && name !== 'x-request-id') headers[name] = value;
  const json = structuredClone(chosen.value) as { payload?: unknown; error?: { requestId?: unknown } };
  if (json.error && typeof json.error === 'object' && 'requestId' in json.error) json.error.requestId = exchange.requestId;
  if (json.payload && typeof json.payload === 'object' && !Array.isArray(json.payload)) useRequestIds(exchange, json.payload as Record<string, unknown>);
  return { status: chosen.status, file: Buffer.from(JSON.stringify(json)), contentType: 'application/json', headers };
}

/**
 * Ids the request names, in place of the example's: a path parameter `companyId` is the payload's `companyId` or
 * `serviceCompanyId`; a body field ending in `Id` is the payload's field of the same name. Only an id of the same
 * kind as the example's (its prefix, `com_`, and its length) takes its place: the answer stays one the contract
 * allows, whatever the request names.
 */
function useRequestIds(exchange: Exchange, payload: Record<string, unknown>): void {
  const ids: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.pathParams)) {
    if (!name.endsWith('Id')) continue;
    ids[name] = value;
    ids[`service${name[0]?.toUpperCase()}${name.slice(1)}`] = value;
  }
  const body = exchange.body.kind === 'json' ? exchange.body.value : undefined;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body)) if (name.endsWith('Id') && typeof value === 'string') ids[name] = value;
  }
  for (const [name, value] of Object.entries(ids)) {
    const documented = payload[name];
    if (typeof documented === 'string' && sameKind(documented, value)) payload[name] = value;
  }
}

const sameKind = (documented: string, sent: string): boolean => sent.length === documented.length && sent.slice(0, sent.indexOf('_') + 1) === documented.slice(0, documented.indexOf('_') + 1) && /^[a-z]+_[0-9A-Za-z]+$/.test(sent);
