/** The contract's operations, flattened with their parameters, body and responses resolved. */
import { deref, type ContractDocument, type JsonObject } from './document.ts';

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonObject;
}

export interface ContractResponse {
  status: string;
  headers: { name: string; required: boolean; schema: JsonObject }[];
  contentTypes: string[];
  jsonSchema?: JsonObject;
}

export interface ContractOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  tags: string[];
  requiresApiKey: boolean;
  /** Carries a required `Idempotency-Key` header: a create. */
  idempotent: boolean;
  parameters: ContractParameter[];
  requestBody?: { required: boolean; contentTypes: string[]; jsonSchema?: JsonObject };
  responses: Map<string, ContractResponse>;
}

export function listOperations(document: ContractDocument): ContractOperation[] {
  const rootSecurity = (document.security as unknown[] | undefined) ?? [];
  const operations: ContractOperation[] = [];
  for (const [pathTemplate, rawItem] of Object.entries(document.paths)) {
    const item = deref(document, rawItem);
    const shared = ((item.parameters as unknown[]) ?? []).map((p) => toParameter(document, p));
    for (const method of httpMethods) {
      const raw = item[method] as JsonObject | undefined;
      if (!raw) continue;
      const own = ((raw.parameters as unknown[]) ?? []).map((p) => toParameter(document, p));
      const parameters = mergeParameters(shared, own);
      const security = (raw.security as unknown[] | undefined) ?? rootSecurity;
      operations.push({
        operationId: String(raw.operationId),
        method: method.toUpperCase(),
        pathTemplate,
        tags: (raw.tags as string[]) ?? [],
        requiresApiKey: security.length > 0 && security.every((requirement) => Object.keys(requirement as object).length > 0),
        idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key' && p.required),
        parameters,
        requestBody: raw.requestBody ? toRequestBody(document, raw.requestBody) : undefined,
        responses: new Map(
          Object.entries((raw.responses as JsonObject) ?? {}).map(([status, response]) => [
            status,
            toResponse(document, status, response),
          ]),
        ),
      });
    }
  }
  return operations;
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

function toRequestBody(document: ContractDocument, raw: unknown): ContractOperation['requestBody'] {
  const body = deref(document, raw);
  const content = (body.content as Record<string, JsonObject>) ?? {};
  return {
    required: body.required === true,
    contentTypes: Object.keys(content),
    jsonSchema: content['application/json']?.schema as JsonObject | undefined,
  };
}

function toResponse(document: ContractDocument, status: string, raw: unknown): ContractResponse {
  const response = deref(document, raw);
  const content = (response.content as Record<string, JsonObject>) ?? {};
  return {
    status,
    headers: Object.entries((response.headers as JsonObject) ?? {}).map(([name, header]) => {
      const resolved = deref(document, header);
      return { name: name.toLowerCase(), required: resolved.required === true, schema: (resolved.schema as JsonObject) ?? {} };
    }),
    contentTypes: Object.keys(content),
    jsonSchema: content['application/json']?.schema as JsonObject | undefined,
  };
}
