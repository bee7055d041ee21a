/**
 * One Ajv set-up holding the whole bundle, so every `#/components/…` reference resolves as in the contract, and
 * a check per schema whose cost stays in proportion to what the contract lets a value hold, whatever it is sent.
 */
import { Ajv2020, type ErrorObject, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import type { ContractDocument, JsonObject } from './document.ts';
import { errorListingValue } from './error-listing-value.ts';

// ajv-formats is CommonJS with a `default` property that NodeNext's ESM interop does not unwrap.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020;

const bundleId = 'contract';

/**
 * The most problems one check lists. What reads them shows fewer (a field error list, a log line): this only
 * keeps a listing's memory bounded.
 */
export const listedProblemsLimit = 1000;

/** A schema's check, called as Ajv's validators are; its `errors` are bounded and say when there were more. */
export interface SchemaCheck {
  (value: unknown): boolean;
  /** The problems the last call found, at most `listedProblemsLimit`, in the order Ajv finds them; null when it passed. */
  errors: ErrorObject[] | null;
  /** Whether the last call found more problems than `errors` holds. */
  more: boolean;
}

export interface SchemaCompiler {
  compile(schema: JsonObject): SchemaCheck;
  /** `#/components/schemas/<name>`, compiled once. */
  component(name: string): SchemaCheck;
}

/** One compiler per document: every mock on the same document (document.ts reads a file once) shares its checks. */
const compilers = new WeakMap<ContractDocument, SchemaCompiler>();

/** The compiler of `document`, made on the first call; a check compiled once serves every caller. */
export function schemaCompilerOf(document: ContractDocument): SchemaCompiler {
  let compiler = compilers.get(document);
  if (compiler === undefined) {
    compiler = newSchemaCompiler(document);
    compilers.set(document, compiler);
  }
  return compiler;
}

function newSchemaCompiler(document: ContractDocument): SchemaCompiler {
  // The verdict comes from a validator that stops at the first problem, so a value is judged in one pass over
  // what it holds; a listing of every problem is made only for a value that failed (error-listing-value.ts).
  const judge = createAjv(document, false);
  let lister: Ajv2020 | undefined;
  const cache = new Map<JsonObject, SchemaCheck>();
  const compile = (schema: JsonObject): SchemaCheck => {
    let check = cache.get(schema);
    if (!check) {
      const id = `${bundleId}-fragment-${cache.size}`;
      const fragment = { $id: id, ...rebase(schema) };
      const verdict = judge.compile(fragment);
      let listing: ValidateFunction | undefined;
      check = Object.assign(
        (value: unknown): boolean => {
          if (verdict(value)) {
            check!.errors = null;
            check!.more = false;
            return true;
          }
          listing ??= (lister ??= createAjv(document, true)).compile(fragment);
          const listed = errorListingValue(document, schema, value, listingBounds);
          listing(listed.value);
          // Cut down, the value may hold none of its problems (they were all past a cut): the verdict's first one stands.
          const found = listing.errors?.length ? listing.errors : (verdict.errors ?? []);
          check!.errors = found.length > listedProblemsLimit ? found.slice(0, listedProblemsLimit) : found;
          check!.more = found.length > listedProblemsLimit || listed.cut;
          return false;
        },
        { errors: null, more: false },
      );
      cache.set(schema, check);
    }
    return check;
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

// More unknown properties than a listing shows are still "more": one past the limit says so. Five listings' worth of
// items in all: enough for every problem a listing keeps, never a million objects.
const listingBounds = { keptUnknownProperties: listedProblemsLimit + 1, unboundedArrayItems: listedProblemsLimit + 1, keptNodes: 5 * listedProblemsLimit };

function createAjv(document: ContractDocument, allErrors: boolean): Ajv2020 {
  // strict: false because OpenAPI adds keywords JSON Schema does not know (discriminator, example, xml).
  // multipleOfPrecision: plain float division refuses decimal steps such as 33.33 for `multipleOf: 0.01`
  // (33.33 / 0.01 = 3332.9999999999995); 1e-9 is far below any step a contract would declare.
  // verbose: each error carries the schema object it broke, whose `x-` facts word it (x-pattern-description).
  const options: Options = { allErrors, strict: false, validateFormats: true, multipleOfPrecision: 9, verbose: true };
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  // Not checked against the meta-schema here (that is a quarter of a second): the contract is linted and its
  // bundle checked in CI, and every fragment is still compiled strictly enough to fail on a broken schema.
  ajv.addSchema({ ...document, $id: bundleId } as object, bundleId, undefined, false);
  return ajv;
}

/** Rewrites the fragment's local `#/…` refs to point into the registered bundle. */
function rebase(schema: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${bundleId}${value}` : value,
  );
}
