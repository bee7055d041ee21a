/**
 * Validators of the bundled contract's component schemas, for tests that check a value is what the contract
 * says. Built with the kit's one schema compiler, so tests, mock and contract suite read the contract the same way.
 */
import { loadContract } from '../../contract-model/document.ts';
import { schemaCompilerOf, type SchemaCheck } from '../../contract-model/schema-compiler.ts';

const compiler = schemaCompilerOf(await loadContract());

/** A validator of `#/components/schemas/<name>`. */
export function contractSchema(name: string): SchemaCheck {
  return compiler.component(name);
}

/** What is wrong with `value` against a contract schema, as text; empty when it is valid. */
export function contractErrors(name: string, value: unknown): string {
  const validate = contractSchema(name);
  return validate(value) ? '' : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}
