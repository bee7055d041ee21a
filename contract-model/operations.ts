/** The contract's operations and webhooks, flattened with their parameters, body and responses resolved. */
import { readDeprecation, type Deprecation } from './deprecation.ts';
import { deref, type ContractDocument, type JsonObject } from './document-nodes.ts';

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonObject;
}

export interface ContractHeader {
  /** Lower case, as Node and `Headers` give them. */
  name: string;
  required: boolean;
  /**
   * The error codes with which a header that is not always sent is (`x-sent-with-error-codes`): required on an
   * answer whose `error.code` is one of them (`Retry-After` with E_IDEMPOTENCY_KEY_IN_PROGRESS).
   */
  sentWithErrorCodes?: readonly string[];
  schema: JsonObject;
}

/** Media type → its schema (`undefined` when it declares none), in the contract's order. */
export type ContractContent = Map<string, JsonObject | undefined>;

export interface ContractResponse {
  /** As the contract keys it: `200`, `4XX` or `default`. */
  status: string;
  headers: ContractHeader[];
  /** Empty when the response has no body. */
  content: ContractContent;
}

export interface ContractOperation {
  operationId: string;
  method: string;
  /** The path template; for a webhook, the event type it is listed under. */
  pathTemplate: string;
  tags: string[];
  requiresApiKey: boolean;
  /**
   * Whether the operation takes the API key (a security scheme read from the `Authorization` header): `required` in
   * every alternative its `security` lists, `optional` in some (it then acts for that key's partner when one is
   * sent), or `none`.
   */
  apiKey: 'required' | 'optional' | 'none';
  /** Carries a required `Idempotency-Key` header: a create. */
  idempotent: boolean;
  parameters: ContractParameter[];
  requestBody?: { required: boolean; content: ContractContent };
  responses: Map<string, ContractResponse>;
  /**
   * The query string is signed as a whole (`x-signed-query`: a download URL): its shape is the signature check's
   * to refuse, with the operation's own code, not the generic validation's.
   */
  signedQuery: boolean;
  /** Set when the operation is deprecated: its answers then carry `Deprecation` and `Sunset`. */
  deprecation?: Deprecation;
}

export function listOperations(document: ContractDocument): ContractOperation[] {
  return Object.entries(document.paths).flatMap(([pathTemplate, item]) => operationsOf(document, pathTemplate, item));
}

/** The operations the API calls on a partner's endpoint, by the event type each is listed under. */
export function listWebhooks(document: ContractDocument): Map<string, ContractOperation> {
  return new Map(
    Object.entries(document.webhooks ?? {}).flatMap(([eventType, item]) =>
      operationsOf(document, eventType, item).map((operation) => [eventType, operation] as const),
    ),
  );
}

/** The names of the security schemes that read the API key: an apiKey in the `Authorization` header. */
function apiKeySchemes(document: ContractDocument): Set<string> {
  const schemes = ((document.components as JsonObject | undefined)?.securitySchemes as JsonObject | undefined) ?? {};
  return new Set(
    Object.entries(schemes)
      .filter(([, raw]) => {
        const scheme = deref(document, raw);
        return scheme.type === 'apiKey' && scheme.in === 'header' && String(scheme.name).toLowerCase() === 'authorization';
      })
      .map(([name]) => name),
  );
}

function apiKeyUse(security: unknown[], keySchemes: Set<string>): ContractOperation['apiKey'] {
  const takesKey = security.map((requirement) => Object.keys(requirement as object).some((name) => keySchemes.has(name)));
  if (takesKey.length > 0 && takesKey.every(Boolean)) return 'required';
  return takesKey.some(Boolean) ? 'optional' : 'none';
}

function operationsOf(document: ContractDocument, pathTemplate: string, rawItem: unknown): ContractOperation[] {
  const rootSecurity = (document.security as unknown[] | undefined) ?? [];
  const keySchemes = apiKeySchemes(document);
  const item = deref(document, rawItem);
  const shared = ((item.parameters as unknown[]) ?? []).map((p) => toParameter(document, p));
  return httpMethods.flatMap((method) => {
    const raw = item[method] as JsonObject | undefined;
    if (!raw) return [];
    const own = ((raw.parameters as unknown[]) ?? []).map((p) => toParameter(document, p));
    const parameters = mergeParameters(shared, own);
    const security = (raw.security as unknown[] | undefined) ?? rootSecurity;
    return [
      {
        operationId: String(raw.operationId),
        method: method.toUpperCase(),
        pathTemplate,
        tags: (raw.tags as string[]) ?? [],
        requiresApiKey: security.length > 0 && security.every((requirement) => Object.keys(requirement as object).length > 0),
        apiKey: apiKeyUse(security, keySchemes),
        idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key' && p.required),
        parameters,
        requestBody: raw.requestBody ? toRequestBody(document, raw.requestBody) : undefined,
        responses: new Map(
          Object.entries((raw.responses as JsonObject) ?? {}).map(([status, response]) => [
            status,
            toResponse(document, status, response),
          ]),
        ),
        signedQuery: raw['x-signed-query'] === true,
        deprecation: readDeprecation(raw),
      },
    ];
  });
}

function toParameter(document: ContractDocument, raw: unknown): ContractParameter {
  const parameter = deref(document, raw);
  return {
    name: String(parameter.name),
    in: parameter.in as ContractParameter['in'],
    required: parameter.required === true,
    schema: (parameter.schema as JsonObject) ?? {},
  };
}

function mergeParameters(shared: ContractParameter[], own: ContractParameter[]): ContractParameter[] {
  const key = (p: ContractParameter) => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const merged = new Map(shared.map((p) => [key(p), p]));
  for (const p of own) merged.set(key(p), p);
  return [...merged.values()];
}

function toContent(raw: unknown): ContractContent {
  return new Map(
    Object.entries((raw as Record<string, JsonObject> | undefined) ?? {}).map(([mediaType, media]) => [
      mediaType,
      media.schema as JsonObject | undefined,
    ]),
  );
}

function toRequestBody(document: ContractDocument, raw: unknown): ContractOperation['requestBody'] {
  const body = deref(document, raw);
  return { required: body.required === true, content: toContent(body.content) };
}

function toResponse(document: ContractDocument, status: string, raw: unknown): ContractResponse {
  const response = deref(document, raw);
  return {
    status,
    headers: Object.entries((response.headers as JsonObject) ?? {}).map(([name, header]) => {
      const resolved = deref(document, header);
      const codes = resolved['x-sent-with-error-codes'];
      return {
        name: name.toLowerCase(),
        required: resolved.required === true,
        schema: (resolved.schema as JsonObject) ?? {},
        ...(Array.isArray(codes) ? { sentWithErrorCodes: codes.map(String) } : {}),
      };
    }),
    content: toContent(response.content),
  };
}
