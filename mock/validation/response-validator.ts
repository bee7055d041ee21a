/**
 * Checks a response the mock is about to send against its operation: the status is declared, the required
 * headers are present and valid, and a JSON body matches the schema. A violation is a bug of the mock.
 */
import type { ValidateFunction } from 'ajv';
import { deref, type ContractDocument } from '../contract/document.ts';
import type { ContractOperation } from '../contract/operations.ts';
import type { SchemaCompiler } from './schema-compiler.ts';

export interface OutgoingResponse {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  /** The JSON value sent, when the body is JSON. */
  json?: unknown;
}

export type ResponseValidator = (response: OutgoingResponse) => string[];

export function compileResponseValidator(
  document: ContractDocument,
  operation: ContractOperation,
  compiler: SchemaCompiler,
): ResponseValidator {
  const byStatus = new Map(
    [...operation.responses].map(([status, response]) => [
      status,
      {
        response,
        body: response.jsonSchema ? compiler.compile(response.jsonSchema) : undefined,
        headers: response.headers.map((header) => ({
          ...header,
          numeric: ['integer', 'number'].includes(String(deref(document, header.schema).type)),
          validate: compiler.compile(header.schema) as ValidateFunction,
        })),
      },
    ]),
  );
  return ({ status, headers, contentType, json }) => {
    const declared = byStatus.get(String(status)) ?? byStatus.get(`${String(status)[0]}XX`) ?? byStatus.get('default');
    if (!declared) return [`status ${status} is not declared for ${operation.operationId}`];
    const problems: string[] = [];
    for (const header of declared.headers) {
      const raw = headers[header.name];
      if (raw === undefined) {
        if (header.required) problems.push(`header ${header.name} is required`);
        continue;
      }
      // Header values are text; the contract types some as integers.
      const value = header.numeric && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      if (!header.validate(value)) problems.push(`header ${header.name}: ${header.validate.errors?.map((e) => e.message).join('; ')}`);
    }
    const mediaType = contentType.split(';')[0]?.trim() ?? '';
    if (declared.response.contentTypes.length > 0 && !declared.response.contentTypes.includes(mediaType)) {
      problems.push(`content type ${mediaType} is not declared (${declared.response.contentTypes.join(', ')})`);
    }
    if (declared.body && mediaType === 'application/json' && !declared.body(json)) {
      problems.push(...(declared.body.errors ?? []).map((e) => `body${e.instancePath}: ${e.message}`));
    }
    return problems;
  };
}
