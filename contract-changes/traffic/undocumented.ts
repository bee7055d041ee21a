/**
 * What a sandbox answered that the contract does not document, found in the answers a proxy passed on from it
 * (`answeredBy: upstream`): a status the operation does not list, and a property of an answer's body that no schema
 * of it names. The contract lets answers gain properties (clients ignore what they do not know), so the response
 * check passes them; here each documented body schema is read closed (every object that names its properties and
 * says nothing of others refusing any other), and what it refuses is what the contract does not say.
 */
import type { ErrorObject } from 'ajv';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../../contract-model/operations.ts';
import { isJsonMediaType, mediaTypeOf } from '../../contract-model/response-validator.ts';
import { createRouter } from '../../contract-model/router.ts';
import { schemaCompilerOf, type SchemaCheck } from '../../contract-model/schema-compiler.ts';
import { formatPointer, valueAt } from '../location.ts';
import { ofIllustratedBranches } from '../review/example-checks.ts';
import { copySchema } from '../schema-copy.ts';
import { statusMatches } from './use-sites.ts';
import type { TrafficExchange } from './traffic-file.ts';

/** A recorded exchange, as a reader finds it again. */
export interface Recorded {
  file: string;
  index: number;
  exchange: TrafficExchange;
}

export interface UndocumentedStatus {
  kind: 'status';
  operation: ContractOperation;
  status: number;
  /** The answers' body, parsed, of the first seen. */
  body: unknown;
  seen: Recorded[];
}

export interface UndocumentedField {
  kind: 'field';
  /** The schema that would name it, as a pointer into the prepared contract (one of its uses). */
  schemaPointer: string;
  name: string;
  /** The value of the first seen. */
  value: unknown;
  operations: Set<string>;
  seen: Recorded[];
}

export type Undocumented = UndocumentedStatus | UndocumentedField;

/** `working`: the contract bundled; `prepared`: the same prepared (prepare.ts), whose pointers name each use. */
export function findUndocumented(recorded: readonly Recorded[], working: JsonObject, prepared: JsonObject): Undocumented[] {
  const operations = listOperations(working as ContractDocument);
  const route = createRouter(operations);
  const closedCheck = closedChecks(prepared);
  const found = new Map<string, Undocumented>();
  for (const each of recorded) {
    const { request, answer } = each.exchange;
    if (each.exchange.answeredBy !== 'upstream' || answer === null) continue;
    const match = route(request.method, request.path);
    if (match.kind !== 'operation') continue;
    const { operation } = match;
    const json = jsonOf(answer);
    const status = [...operation.responses.keys()].find((documented) => statusMatches(documented, answer.status));
    if (status === undefined) {
      const key = `status\u0000${operation.operationId}\u0000${answer.status}`;
      const known = found.get(key) ?? { kind: 'status', operation, status: answer.status, body: json, seen: [] };
      known.seen.push(each);
      found.set(key, known);
      continue;
    }
    const mediaType = mediaTypeOf(answer.headers['content-type']);
    if (json === undefined || !isJsonMediaType(mediaType)) continue;
    const schemaPointer = ['paths', operation.pathTemplate, operation.method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema'];
    for (const unnamed of closedCheck(schemaPointer)?.(json) ?? []) {
      const key = `field\u0000${unnamed.schemaPointer}\u0000${unnamed.name}`;
      const known = (found.get(key) as UndocumentedField | undefined) ?? { kind: 'field', ...unnamed, operations: new Set<string>(), seen: [] };
      known.operations.add(operation.operationId);
      known.seen.push(each);
      found.set(key, known);
    }
  }
  return [...found.values()];
}

function jsonOf(answer: NonNullable<TrafficExchange['answer']>): unknown {
  if (typeof answer.body?.text !== 'string' || answer.body.truncated) return undefined;
  try {
    return JSON.parse(answer.body.text);
  } catch {
    return undefined;
  }
}

type ClosedCheck = (json: unknown) => { schemaPointer: string; name: string; value: unknown }[];

/** Each documented body schema read closed, compiled once, and what it refuses in a body: the properties it does not name. */
function closedChecks(prepared: JsonObject): (schemaPointer: string[]) => ClosedCheck | undefined {
  let compiler: ReturnType<typeof schemaCompilerOf> | undefined;
  const checks = new Map<string, ClosedCheck | undefined>();
  return (schemaPointer) => {
    const key = formatPointer(schemaPointer);
    if (checks.has(key)) return checks.get(key);
    const schema = valueAt(prepared, schemaPointer);
    let check: ClosedCheck | undefined;
    if (typeof schema === 'object' && schema !== null) {
      compiler ??= schemaCompilerOf(prepared as ContractDocument);
      const validate = compiler.compile(closed(schema as JsonObject));
      check = (json) => (validate(json) ? [] : unnamedIn(validate, json, schemaPointer));
    }
    checks.set(key, check);
    return check;
  };
}

/** Every object schema that names its properties and says nothing of others refuses any other. */
function closed(schema: JsonObject): JsonObject {
  return copySchema(schema, (copy, node) => {
    if (typeof node.properties === 'object' && node.properties !== null && !('additionalProperties' in node) && !('unevaluatedProperties' in node)) copy.unevaluatedProperties = false;
  });
}

/** The properties a closed schema refused, each at the schema that would name it, of the branch the body illustrates. */
function unnamedIn(validate: SchemaCheck, json: unknown, schemaPointer: readonly string[]): { schemaPointer: string; name: string; value: unknown }[] {
  const refused = ofIllustratedBranches(validate.errors ?? []).filter((error) => error.keyword === 'unevaluatedProperties');
  return refused.map((error: ErrorObject) => {
    const name = String((error.params as { unevaluatedProperty?: unknown }).unevaluatedProperty);
    const inSchema = error.schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean).slice(0, -1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    const holder = error.instancePath === '' ? json : valueAt(json, error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~')));
    return { schemaPointer: formatPointer([...schemaPointer, ...inSchema]), name, value: (holder as Record<string, unknown> | undefined)?.[name] };
  });
}
