/**
 * Request samples for the reference docs (`x-codeSamples`, which Redoc shows beside each operation): a curl command
 * and a call of the typed client, both built from the contract's own examples, so they never drift from it. Added
 * to the copy of the bundle the docs are built from, not to the bundle itself: they are presentation.
 */
import { deref, type ContractDocument, type JsonObject } from '../contract-model/document.ts';
import { listOperations, type ContractOperation } from '../contract-model/operations.ts';

const placeholderKey = 'dk_test_…';

export function withCodeSamples(document: ContractDocument): ContractDocument {
  const copy = structuredClone(document);
  const server = String(((copy.servers as JsonObject[] | undefined) ?? [])[0]?.url ?? 'https://sandbox.api.example');
  for (const operation of listOperations(copy)) {
    const raw = (copy.paths[operation.pathTemplate] as Record<string, JsonObject>)[operation.method.toLowerCase()] as JsonObject;
    const example = exampleRequest(copy, raw);
    raw['x-codeSamples'] = [
      { lang: 'Shell', label: 'curl', source: curlSample(server, operation, example) },
      { lang: 'TypeScript', label: 'Client', source: clientSample(operation, example) },
    ];
  }
  return copy;
}

interface ExampleRequest {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body?: unknown;
}

function exampleRequest(document: ContractDocument, operation: JsonObject): ExampleRequest {
  const request: ExampleRequest = { path: {}, query: {} };
  for (const rawParameter of (operation.parameters as unknown[] | undefined) ?? []) {
    const parameter = deref(document, rawParameter);
    const value = parameter.example ?? (deref(document, parameter.schema).examples as unknown[] | undefined)?.[0];
    if (parameter.in === 'path') request.path[String(parameter.name)] = value;
    // Optional filters are left out: a sample shows the call, not every option.
    if (parameter.in === 'query' && parameter.required === true) request.query[String(parameter.name)] = value;
  }
  const media = (deref(document, operation.requestBody)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
  if (media) {
    const named = Object.values((media.examples as Record<string, unknown> | undefined) ?? {})[0];
    request.body = named === undefined ? (deref(document, media.schema).examples as unknown[] | undefined)?.[0] : deref(document, named).value;
  }
  return request;
}

function concretePath(operation: ContractOperation, example: ExampleRequest): string {
  const path = operation.pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(example.path[name] ?? name)));
  const query = new URLSearchParams(Object.entries(example.query).map(([name, value]): [string, string] => [name, String(value)])).toString();
  return query === '' ? path : `${path}?${query}`;
}

function curlSample(server: string, operation: ContractOperation, example: ExampleRequest): string {
  const lines = [`curl -X ${operation.method} '${server}${concretePath(operation, example)}'`];
  if (operation.apiKey !== 'none') lines.push(`  -H 'Authorization: ${placeholderKey}'`);
  if (operation.idempotent) lines.push(`  -H "Idempotency-Key: $(uuidgen)"`);
  if (example.body !== undefined) {
    lines.push(`  -H 'Content-Type: application/json'`, `  -d '${JSON.stringify(example.body).replaceAll("'", "'\\''")}'`);
  }
  return lines.join(' \\\n');
}

function clientSample(operation: ContractOperation, example: ExampleRequest): string {
  const setup = `const api = createPartnerClient({ baseUrl, apiKey: process.env.PARTNER_API_KEY! });`;
  if (operation.operationId === 'downloadCompanyDocument') {
    return `${setup}\n// The signed URL from getCompanyDocument; the client sends no key with it.\nconst { payload: pdf } = await api.downloadDocument(document.downloadUrl);`;
  }
  const params = { ...example.path, ...example.query };
  const args = [
    ...(Object.keys(params).length > 0 || operation.parameters.some((p) => p.in === 'query') ? [JSON.stringify(params, null, 2)] : []),
    ...(example.body === undefined ? [] : [JSON.stringify(example.body, null, 2)]),
  ];
  return `${setup}\nconst { payload } = await api.${operation.operationId}(${args.join(', ')});`;
}
