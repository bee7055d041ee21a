/**
 * The bundled contract as the suite reads it: operations with their path templates, the statuses and headers
 * each documents, the webhook events, and the request examples the scenarios send. Everything is read from
 * `generated/openapi.json`, so a regenerated bundle changes what is checked without touching the suite.
 */
import bundle from '../../generated/openapi.json' with { type: 'json' };
import type { OperationId } from '../../client/index.ts';

type Json = unknown;
interface Ref {
  $ref: string;
}
interface HeaderObject {
  required?: boolean;
  schema?: Json;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, { schema?: Json }>;
}
interface OperationObject {
  operationId: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, ResponseObject | Ref>;
  requestBody?: unknown;
}
interface Document {
  security?: unknown[];
  paths: Record<string, Record<string, OperationObject | unknown>>;
  webhooks: Record<string, { post: { parameters?: (Ref | { name: string })[]; requestBody: { content: Record<string, unknown> } } }>;
  tags: { name: string; description?: string }[];
  components: {
    examples: Record<string, { value: Json }>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    parameters: Record<string, { name: string; in: string; required?: boolean }>;
  };
}

export const contractDocument = bundle as unknown as Document;

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface DocumentedHeader {
  name: string;
  required: boolean;
  /** A JSON Pointer into the bundle, for the validator to compile. */
  schemaPointer: string | undefined;
}

export interface DocumentedResponse {
  status: number;
  headers: DocumentedHeader[];
  /** Media type → pointer to its schema. Empty when the response has no body. */
  content: Map<string, string | undefined>;
}

export interface ContractOperation {
  operationId: OperationId;
  method: string;
  pathTemplate: string;
  pattern: RegExp;
  tags: readonly string[];
  takesBody: boolean;
  /** False for an operation that opts out of the root's API key (`security: []`), such as the signed download. */
  takesApiKey: boolean;
  responses: Map<number, DocumentedResponse>;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && '$ref' in value && typeof value.$ref === 'string';
}

/** Follows a local `$ref` to its target and returns the target with its own pointer (for the validator). */
function follow<T>(value: T | Ref, pointer: string): { value: T; pointer: string } {
  let current: unknown = value;
  let at = pointer;
  for (let hops = 0; isRef(current); hops++) {
    if (hops > 10 || !current.$ref.startsWith('#/')) throw new Error(`Unsupported $ref ${current.$ref} at ${at}.`);
    at = current.$ref.slice(1);
    current = at
      .split('/')
      .slice(1)
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], contractDocument);
    if (current === undefined) throw new Error(`The bundle's ${at} does not resolve.`);
  }
  return { value: current as T, pointer: at };
}

function documentedResponse(status: string, raw: ResponseObject | Ref, pointer: string): DocumentedResponse {
  const { value: response, pointer: at } = follow(raw, pointer);
  const headers = Object.entries(response.headers ?? {}).map(([name, header]) => {
    const resolved = follow(header, `${at}/headers/${escapePointer(name)}`);
    return {
      name: name.toLowerCase(),
      required: resolved.value.required === true,
      schemaPointer: resolved.value.schema === undefined ? undefined : `${resolved.pointer}/schema`,
    };
  });
  const content = new Map(
    Object.entries(response.content ?? {}).map(([mediaType, media]) => [
      mediaType,
      media.schema === undefined ? undefined : `${at}/content/${escapePointer(mediaType)}/schema`,
    ]),
  );
  return { status: Number(status), headers, content };
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

export const contractOperations: readonly ContractOperation[] = Object.entries(contractDocument.paths).flatMap(
  ([pathTemplate, item]) =>
    httpMethods.flatMap((method) => {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) return [];
      const pointer = `/paths/${escapePointer(pathTemplate)}/${method}`;
      const responses = new Map(
        Object.entries(operation.responses).map(([status, response]) => {
          if (!/^\d{3}$/.test(status)) throw new Error(`${operation.operationId}: the suite expects explicit statuses, not ${status}.`);
          return [Number(status), documentedResponse(status, response, `${pointer}/responses/${status}`)] as const;
        }),
      );
      return [
        {
          operationId: operation.operationId as OperationId,
          method: method.toUpperCase(),
          pathTemplate,
          pattern: templatePattern(pathTemplate),
          tags: operation.tags ?? [],
          takesBody: operation.requestBody !== undefined,
          takesApiKey: (operation.security ?? contractDocument.security ?? []).length > 0,
          responses,
        },
      ];
    }),
);

export function contractOperation(operationId: OperationId): ContractOperation {
  const operation = contractOperations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`The contract has no operation ${operationId}.`);
  return operation;
}

export type RouteMatch =
  | { kind: 'operation'; operation: ContractOperation }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'unknown-path' };

/** The operation a request is for, by method and path template, as the target would route it. */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const candidates = contractOperations.filter((operation) => operation.pattern.test(pathname));
  // A static segment beats a parameter, as in every router: `/a/b` over `/a/{id}`.
  const specificity = (operation: ContractOperation) => -(operation.pathTemplate.match(/\{/g)?.length ?? 0);
  const byTemplate = candidates.sort((a, b) => specificity(b) - specificity(a));
  const best = byTemplate[0];
  if (!best) return { kind: 'unknown-path' };
  const sameTemplate = byTemplate.filter((operation) => operation.pathTemplate === best.pathTemplate);
  const operation = sameTemplate.find((candidate) => candidate.method === method.toUpperCase());
  if (operation) return { kind: 'operation', operation };
  return { kind: 'method-not-allowed', allowed: sameTemplate.map((candidate) => candidate.method) };
}

export interface DocumentedPair {
  operationId: OperationId;
  status: number;
}

/** Every (operation, status) the contract documents, in the bundle's order. */
export function documentedPairs(): DocumentedPair[] {
  return contractOperations.flatMap((operation) =>
    [...operation.responses.keys()].map((status) => ({ operationId: operation.operationId, status })),
  );
}

/** A deep copy of `components.examples[name].value`, so that a scenario may change it freely. */
export function exampleValue<T = Record<string, unknown>>(name: string): T {
  const example = contractDocument.components.examples[name];
  if (!example) throw new Error(`The contract has no example ${name}.`);
  return structuredClone(example.value) as T;
}

/** The pointer of a webhook event's body schema, and its header parameters. */
export function webhookContract(eventType: string): {
  bodyPointer: string;
  headers: { name: string; required: boolean; schemaPointer: string }[];
} | undefined {
  const webhook = contractDocument.webhooks[eventType];
  if (!webhook) return undefined;
  const headers = (webhook.post.parameters ?? []).map((parameter, index) => {
    const { value, pointer } = follow(
      parameter as { name: string; required?: boolean } | Ref,
      `/webhooks/${escapePointer(eventType)}/post/parameters/${index}`,
    );
    return { name: value.name.toLowerCase(), required: value.required === true, schemaPointer: `${pointer}/schema` };
  });
  return {
    bodyPointer: `/webhooks/${escapePointer(eventType)}/post/requestBody/content/application~1json/schema`,
    headers,
  };
}

/**
 * The rows of a Markdown table in a tag's description whose header has these column names, e.g. the
 * *Rules checked on submission* of the Companies tag: the prose is part of the contract, so the suite reads
 * which rules exist from it rather than from a copy.
 */
export function tagTable(tagName: string, columns: readonly string[]): Record<string, string>[] {
  const description = contractDocument.tags.find((tag) => tag.name === tagName)?.description ?? '';
  const lines = description.split('\n').map((line) => line.trim());
  const cells = (line: string) =>
    line
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((cell) => cell.trim());
  const headerIndex = lines.findIndex(
    (line) => line.startsWith('|') && columns.every((column, i) => cells(line)[i]?.toLowerCase() === column.toLowerCase()),
  );
  if (headerIndex < 0) return [];
  const rows: Record<string, string>[] = [];
  for (const line of lines.slice(headerIndex + 2)) {
    if (!line.startsWith('|')) break;
    const values = cells(line);
    rows.push(Object.fromEntries(columns.map((column, i) => [column, values[i] ?? ''])));
  }
  return rows;
}
