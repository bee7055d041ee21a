/**
 * Checks the headers of a message against those the contract documents for it: a response's headers, or a
 * webhook's header parameters. A required one must be there, and every one there must match its schema.
 */
import { deref, type ContractDocument } from './document.ts';
import type { ContractHeader } from './operations.ts';
import { describeSchemaErrors } from './schema-errors.ts';
import type { SchemaCompiler } from './schema-compiler.ts';

/**
 * Adds to `problems` what is wrong with the headers received (by lower-case name); nothing when they are valid.
 * `errorCode`: the answer's `error.code`, for the headers sent with some codes only (`x-sent-with-error-codes`).
 */
export type HeadersCheck = (received: Readonly<Record<string, string | undefined>>, problems: string[], errorCode?: string) => void;

export function compileHeadersCheck(
  document: ContractDocument,
  headers: readonly ContractHeader[],
  compiler: SchemaCompiler,
): HeadersCheck {
  const compiled = headers.map((header) => ({
    name: header.name,
    required: header.required,
    sentWith: header.sentWithErrorCodes,
    // Header values are text; the contract types some as integers.
    numeric: ['integer', 'number'].includes(String(deref(document, header.schema).type)),
    validate: compiler.compile(header.schema),
  }));
  return (received, problems, errorCode) => {
    for (const header of compiled) {
      const raw = received[header.name];
      if (raw === undefined) {
        if (header.required) problems.push(`required header ${header.name} is missing`);
        else if (errorCode !== undefined && header.sentWith?.includes(errorCode)) problems.push(`header ${header.name} is missing, which the contract sends with ${errorCode}`);
        continue;
      }
      const value = header.numeric && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      if (!header.validate(value)) problems.push(...describeSchemaErrors(`header ${header.name} ${JSON.stringify(raw)}`, header.validate.errors, header.validate.more));
    }
  };
}
