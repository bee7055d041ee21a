import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object, whose `default` is the plugin.
const addFormats = addFormatsModule.default;

const bundle: unknown = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8'));

// strict: false because the bundle carries OpenAPI keywords (discriminator, examples, x-…) that are not JSON Schema.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(bundle as object, 'openapi');

const compiled = new Map<string, ValidateFunction>();

/** A validator of one `#/components/schemas/<name>` of the bundled contract. */
export function contractSchema(name: string): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate;
}

/** The validation errors of `value` against a contract schema, as text; empty when it is valid. */
export function contractErrors(name: string, value: unknown): string {
  const validate = contractSchema(name);
  return validate(value) ? '' : ajv.errorsText(validate.errors);
}
