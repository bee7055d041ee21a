/**
 * Validators of the bundled contract's component schemas, for tests that check a value is what the contract
 * says. Built with the mock's own schema compiler, so tests and mock read the contract the same way.
 */
import type { ValidateFunction } from 'ajv';
import { loadContract } from '../../mock/contract/document.ts';
import { createSchemaCompiler } from '../../mock/validation/schema-compiler.ts';

const compiler = createSchemaCompiler(await loadContract());
const compiled = new Map<string, ValidateFunction>();

/** A validator of `#/components/schemas/<name>`. */
export function contractSchema(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = compiler.compile({ $ref: `#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate;
}

/** What is wrong with `value` against a contract schema, as text; empty when it is valid. */
export function contractErrors(name: string, value: unknown): string {
  const validate = contractSchema(name);
  return validate(value) ? '' : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}
