/**
 * A request of Try, built from the form's values as the contract places each parameter, sent as the partner's app
 * would send it (the session's key, no mark of the console: it is the partner's own request), and its answer kept
 * as it came.
 */
import type { ContractOperation, ContractParameter } from '../../../contract-model/operations.ts';
import { partnerKey } from '../../session.ts';

export interface Sent {
  status: number;
  ms: number;
  headers: [string, string][];
  body: { text: string } | { bytes: number; type: string; url: string };
}

export interface TryRequest {
  operation: ContractOperation;
  parameters: ContractParameter[];
  values: Record<string, string>;
  body: Record<string, unknown>;
  takesJson: boolean;
  prefer: string;
}

/** The names of the required parameters left empty (an Idempotency-Key is always filled in). */
export function missingParameters({ parameters, values }: Pick<TryRequest, 'parameters' | 'values'>): string[] {
  return parameters.filter((parameter) => parameter.required && !values[parameter.name] && !isIdempotencyKey(parameter)).map((parameter) => parameter.name);
}

export async function sendRequest(request: TryRequest): Promise<Sent> {
  const { operation, parameters, values, body, takesJson, prefer } = request;
  let path = operation.pathTemplate;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of parameters) {
    const value = values[parameter.name];
    if (!value) continue;
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
    else if (parameter.in === 'query') query.set(parameter.name, value);
    else headers[parameter.name] = value;
  }
  if (operation.apiKey !== 'none' && partnerKey.value) headers.authorization = partnerKey.value;
  if (prefer) headers.prefer = prefer;
  if (takesJson) headers['content-type'] = 'application/json';
  const started = performance.now();
  const response = await fetch(`${path}${query.size ? `?${query}` : ''}`, { method: operation.method, headers, ...(takesJson ? { body: JSON.stringify(body) } : {}) });
  const type = response.headers.get('content-type') ?? '';
  const answered = /json|text/.test(type) ? { text: await response.text() } : await binaryOf(response, type);
  return { status: response.status, ms: performance.now() - started, headers: [...response.headers.entries()], body: answered };
}

async function binaryOf(response: Response, type: string): Promise<Sent['body']> {
  const blob = await response.blob();
  return { bytes: blob.size, type, url: URL.createObjectURL(blob) };
}

export const isIdempotencyKey = (parameter: ContractParameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key';

/** A fresh Idempotency-Key for the operation's parameter of that name, if it has one. */
export function idempotencyKeyOf(parameters: ContractParameter[]): Record<string, string> {
  const parameter = parameters.find(isIdempotencyKey);
  return parameter ? { [parameter.name]: crypto.randomUUID() } : {};
}
