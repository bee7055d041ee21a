/**
 * Puts a bundled contract into the shape the differ (detect.ts) judges best. Every `$ref` is inlined first, giving
 * each use of a shared component its own place, judged on its own side (a request or a response), and every
 * `allOf` is merged into one schema (a property that moved between `allOf` members, or a member that only gained
 * `examples`, is no change). Component bodies are then judged where they are used; under `components` only the
 * names remain (a generated client exports a type per name) and the security schemes.
 */
import { bundle, createConfig } from '@redocly/openapi-core';
import { merge, openApiMergeRules } from 'allof-merge';
import type { JsonObject } from '../contract-model/document.ts';

/** Component maps whose entries are judged at each use; `securitySchemes` are judged where they are declared. */
const judgedWhereUsed = ['schemas', 'parameters', 'responses', 'requestBodies', 'headers', 'examples', 'links', 'callbacks', 'pathItems'];

/** Reads a contract from its split source (`openapi/openapi.yaml`) into one bundled document. */
export async function bundleContract(rootFile: string): Promise<JsonObject> {
  const config = await createConfig({});
  const { bundle: result, problems } = await bundle({ ref: rootFile, config });
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`${rootFile} does not bundle: ${errors.map((problem) => problem.message).join('; ')}`);
  }
  return result.parsed as JsonObject;
}

/** Each contract is prepared once however often it is compared (a fixture's base, a commit of the history). */
const preparedOnce = new WeakMap<JsonObject, Promise<JsonObject>>();

/** The contract as the differ compares it; the same contract object, unchanged, is prepared once. */
export function prepareForDiff(contract: JsonObject): Promise<JsonObject> {
  let prepared = preparedOnce.get(contract);
  if (prepared === undefined) {
    prepared = prepare(contract);
    preparedOnce.set(contract, prepared);
  }
  return prepared;
}

async function prepare(contract: JsonObject): Promise<JsonObject> {
  // allOf merged first, while each component is written once (merging every inlined copy took seconds), then inlined.
  const prepared = await dereference(mergeAllOf(contract));
  return { ...prepared, info: withoutVersion(prepared.info), components: namesOnly(prepared.components) };
}

/**
 * Every `$ref` inlined. One object serves every use of a component: nothing downstream changes a prepared
 * contract, and the differ compares each use where it is.
 */
async function dereference(contract: JsonObject): Promise<JsonObject> {
  const config = await createConfig({});
  const document = { source: { absoluteRef: '/contract.json' }, parsed: contract };
  // The document is already bundled: every `$ref` is local, so the resolver never reads a file.
  const { bundle: result, problems } = await bundle({ doc: document as never, config, dereference: true });
  const errors = problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) throw new Error(`the contract does not dereference: ${errors.map((p) => p.message).join('; ')}`);
  return result.parsed as JsonObject;
}

/** Every `allOf` merged into one schema (allof-merge follows the `$ref`s among its members); the input is not changed. */
function mergeAllOf(contract: JsonObject): JsonObject {
  const rules = openApiMergeRules('3.1.x');
  const onMergeError = (message: string, path: (string | number)[]): never => {
    throw new Error(`cannot merge the allOf at /${path.join('/')}: ${message}`);
  };
  const merged = merge(structuredClone(contract), { rules, onMergeError }) as JsonObject;
  if (contract.webhooks === undefined) return merged;
  // The OpenAPI merge rules know `paths` but not 3.1's `webhooks`, whose values are path items too.
  const asPaths = merge({ openapi: merged.openapi, paths: merged.webhooks, components: merged.components }, { rules, onMergeError }) as JsonObject;
  return { ...merged, webhooks: asPaths.paths };
}

function withoutVersion(info: unknown): JsonObject {
  // info.version is set by a release; it is the outcome of the comparison, not a change to judge.
  const { version: _version, ...rest } = (info ?? {}) as JsonObject;
  return rest;
}

function namesOnly(components: unknown): JsonObject {
  const result: JsonObject = {};
  for (const [kind, entries] of Object.entries((components ?? {}) as Record<string, JsonObject>)) {
    result[kind] = judgedWhereUsed.includes(kind)
      ? Object.fromEntries(Object.keys(entries).map((name) => [name, {}]))
      : entries;
  }
  return result;
}
