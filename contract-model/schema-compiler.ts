/** One Ajv instance holding the whole bundle, so every `#/components/…` reference resolves as in the contract. */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import type { ContractDocument, JsonObject } from './document.ts';

// ajv-formats is CommonJS with a `default` property that NodeNext's ESM interop does not unwrap.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020;

const bundleId = 'contract';

export interface SchemaCompiler {
  compile(schema: JsonObject): ValidateFunction;
  /** `#/components/schemas/<name>`, compiled once. */
  component(name: string): ValidateFunction;
}

export function createSchemaCompiler(document: ContractDocument): SchemaCompiler {
  // strict: false because OpenAPI adds keywords JSON Schema does not know (discriminator, example, xml).
  // multipleOfPrecision: plain float division refuses decimal steps such as 33.33 for `multipleOf: 0.01`
  // (33.33 / 0.01 = 3332.9999999999995); 1e-9 is far below any step a contract would declare.
  // verbose: each error carries the schema object it broke, whose `x-` facts word it (x-pattern-description).
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, multipleOfPrecision: 9, verbose: true });
  addFormats(ajv);
  // Not checked against the meta-schema here (that is a quarter of a second): the contract is linted and its
  // bundle checked in CI, and every fragment is still compiled strictly enough to fail on a broken schema.
  ajv.addSchema({ ...document, $id: bundleId } as object, bundleId, undefined, false);
  const cache = new Map<JsonObject, ValidateFunction>();
  const compile = (schema: JsonObject): ValidateFunction => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile({ $id: `${bundleId}-fragment-${cache.size}`, ...rebase(schema) });
      cache.set(schema, validate);
    }
    return validate;
  };
  // The cache is by schema object: a reference made up per call would never hit it.
  const references = new Map<string, JsonObject>();
  return {
    compile,
    component(name) {
      let reference = references.get(name);
      if (!reference) {
        reference = { $ref: `#/components/schemas/${name}` };
        references.set(name, reference);
      }
      return compile(reference);
    },
  };
}

/** Rewrites the fragment's local `#/…` refs to point into the registered bundle. */
function rebase(schema: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${bundleId}${value}` : value,
  );
}
