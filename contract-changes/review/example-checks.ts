/**
 * The examples a change made invalid: each example of the working contract (of a request body, a response, a
 * parameter, a header, or inside a schema) that its schema refuses, and that its schema accepted before the change
 * (or that is new). Only the examples whose value or schema the change touched are checked. One that no longer
 * validates is a request a partner may have copied from the docs that stops working, or an answer the API gave that
 * the contract no longer allows.
 *
 * An example is checked as what it is: a request against the fields a request carries (a `readOnly` one is never
 * required of it), a response against those a response carries (nor a `writeOnly` one), and a `oneOf` against the
 * branch it illustrates (its discriminator's value, or the branch it comes closest to), so that each problem is
 * said once and none is about another branch.
 */
import type { ErrorObject } from 'ajv';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { schemaCompilerOf, type SchemaCompiler } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { formatPointer, isMethod, keptOutBy, listedSubschemas, namedSubschemas, singleSubschemas, valueAt, type Side } from '../location.ts';
import { copySchema } from '../schema-copy.ts';

export interface ExampleFailure {
  /** The example in the working contract (prepared): `…/content/application~1json/examples/minimal/value`. */
  pointer: string;
  /** What its schema refuses in it, each once. */
  problems: string[];
}

/** An example, and the schema it illustrates, as segments into a prepared contract. */
interface Example {
  at: string[];
  schema: string[];
  side: Side;
}

/**
 * `before` and `after` prepared (prepareForDiff); `changed`: the pointers of the changes between them (detect.ts),
 * which say which examples can have changed their verdict.
 */
export function examplesMadeInvalid(before: JsonObject, after: JsonObject, changed: readonly string[]): ExampleFailure[] {
  const touched = new Set(changed.flatMap(ancestorsOf));
  const exact = new Set(changed);
  const checks = { before: checker(before), after: checker(after) };
  const failures: ExampleFailure[] = [];
  for (const example of examplesIn(after, (segments) => touched.has(formatPointer(segments)))) {
    const pointer = formatPointer(example.at);
    const changedHere = touched.has(formatPointer(example.schema)) || ancestorsOf(pointer).some((ancestor) => exact.has(ancestor));
    if (!changedHere) continue;
    const problems = checks.after(example);
    if (problems.length === 0 || (valueAt(before, example.at) !== undefined && checks.before(example).length > 0)) continue;
    failures.push({ pointer, problems });
  }
  return failures;
}

/** `#/a/b/c` and each pointer above it: `#/a/b`, `#/a`, `#`. */
function ancestorsOf(pointer: string): string[] {
  const ancestors = [pointer];
  for (let end = pointer.lastIndexOf('/'); end > 0; end = pointer.lastIndexOf('/', end - 1)) ancestors.push(pointer.slice(0, end));
  return ancestors;
}

/** What the schema of an example refuses in it, in one contract; each schema compiled once per side. */
function checker(contract: JsonObject): (example: Example) => string[] {
  let compiler: SchemaCompiler | undefined;
  const compiled = new Map<Side, WeakMap<JsonObject, ReturnType<SchemaCompiler['compile']>>>([['request', new WeakMap()], ['response', new WeakMap()]]);
  return ({ at, schema: schemaAt, side }) => {
    const schema = valueAt(contract, schemaAt);
    if (!isObject(schema)) return [];
    compiler ??= schemaCompilerOf(contract as ContractDocument);
    let validate = compiled.get(side)!.get(schema);
    if (validate === undefined) {
      validate = compiler.compile(asSideSees(schema, side));
      compiled.get(side)!.set(schema, validate);
    }
    if (validate(valueAt(contract, at))) return [];
    return describeSchemaErrors('the example', onceEach(ofIllustratedBranches(validate.errors ?? [])));
  };
}

/**
 * The schema without the `required` fields the side never carries: `readOnly` ones in what the partner sends,
 * `writeOnly` ones in what it receives (OpenAPI 3.1, Schema Object, readOnly and writeOnly).
 */
export function asSideSees(schema: unknown, side: Side): JsonObject {
  const keptOut = keptOutBy[side];
  return copySchema(schema, (copy, node) => {
    const properties = isObject(node.properties) ? node.properties : {};
    if (Array.isArray(node.required)) {
      copy.required = (node.required as unknown[]).filter((name) => !(isObject(properties[String(name)]) && (properties[String(name)] as JsonObject)[keptOut] === true));
    }
  });
}

/**
 * Ajv reports a value that fits no branch of a `oneOf` (or `anyOf`) with the failures of every branch. Only the
 * branch the value illustrates is kept: the one its discriminator names, or else the one it fails least; and the
 * "must match exactly one schema" error only when that branch has nothing of its own to say.
 */
export function ofIllustratedBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  let kept = [...errors];
  const choices = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf').sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const choice of choices) {
    if (!kept.includes(choice)) continue;
    const prefix = `${choice.schemaPath}/`;
    const branches = (isObject(choice.parentSchema) ? choice.parentSchema[choice.keyword] : undefined) as unknown[] | undefined;
    if (!Array.isArray(branches)) continue;
    const inBranch = (index: number) => kept.filter((error) => error.schemaPath.startsWith(`${prefix}${index}/`));
    const chosen = discriminated(choice, branches) ?? leastFailed(branches.length, inBranch);
    const own = inBranch(chosen);
    kept = kept.filter((error) => (!error.schemaPath.startsWith(prefix) || own.includes(error)) && !(error === choice && own.length > 0));
  }
  return kept;
}

/** Each problem once: the same refusal of the same value, whichever schema keyword path led to it. */
function onceEach(errors: readonly ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = [error.instancePath, error.keyword, error.message, JSON.stringify(error.params)].join('\u0000');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The branch whose discriminating property holds the value's: by its `const` or `enum`, or the mapping's name. */
function discriminated(choice: ErrorObject, branches: readonly unknown[]): number | undefined {
  const discriminator = isObject(choice.parentSchema) ? choice.parentSchema.discriminator : undefined;
  const property = isObject(discriminator) ? discriminator.propertyName : undefined;
  if (typeof property !== 'string' || !isObject(choice.data)) return undefined;
  const value = choice.data[property];
  const mapped = isObject(discriminator) && isObject(discriminator.mapping) ? discriminator.mapping[String(value)] : undefined;
  const index = branches.findIndex((branch) => {
    if (!isObject(branch)) return false;
    const schema = isObject(branch.properties) ? branch.properties[property] : undefined;
    const named = typeof mapped === 'string' && typeof branch.title === 'string' && mapped.split('/').at(-1)?.replace(/\.ya?ml$/, '') === branch.title;
    return named || (isObject(schema) && (schema.const === value || (Array.isArray(schema.enum) && schema.enum.includes(value))));
  });
  return index < 0 ? undefined : index;
}

function leastFailed(count: number, inBranch: (index: number) => ErrorObject[]): number {
  let best = 0;
  for (let index = 1; index < count; index += 1) if (inBranch(index).length < inBranch(best).length) best = index;
  return best;
}

/**
 * Every example of a contract with the schema it illustrates and the side that sends it: those of media types,
 * parameters and headers (against their schema), and those inside schemas (against the schema that holds them).
 * `inChanged` says whether anything below a place changed: the walk does not enter what did not.
 */
function examplesIn(contract: JsonObject, inChanged: (segments: string[]) => boolean): Example[] {
  const examples: Example[] = [];
  const visit = (node: unknown, at: string[], side: Side): void => {
    if (!isObject(node) || !inChanged(at)) return;
    if (isObject(node.schema)) {
      const schema = [...at, 'schema'];
      if ('example' in node) examples.push({ at: [...at, 'example'], schema, side });
      if (isObject(node.examples) && !Array.isArray(node.examples)) {
        for (const [name, example] of Object.entries(node.examples)) {
          if (isObject(example) && 'value' in example) examples.push({ at: [...at, 'examples', name, 'value'], schema, side });
        }
      }
      inSchema(node.schema, schema, side);
    }
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'schema' && key !== 'examples' && key !== 'example') visit(value, [...at, key], sideOf(at, key, side));
    }
  };
  const inSchema = (schema: unknown, at: string[], side: Side): void => {
    if (!isObject(schema) || !inChanged(at)) return;
    if ('example' in schema) examples.push({ at: [...at, 'example'], schema: at, side });
    if (Array.isArray(schema.examples)) schema.examples.forEach((_, index) => examples.push({ at: [...at, 'examples', String(index)], schema: at, side }));
    for (const keyword of namedSubschemas) {
      if (isObject(schema[keyword])) for (const name of Object.keys(schema[keyword])) inSchema(schema[keyword][name], [...at, keyword, name], side);
    }
    for (const keyword of listedSubschemas) {
      if (Array.isArray(schema[keyword])) (schema[keyword] as unknown[]).forEach((sub, index) => inSchema(sub, [...at, keyword, String(index)], side));
    }
    for (const keyword of singleSubschemas) inSchema(schema[keyword], [...at, keyword], side);
  };
  for (const root of ['paths', 'webhooks']) visit(contract[root], [root], 'request');
  return examples;
}

/**
 * The side that sends what is below `key`: an operation's responses are received and its request sent, the other
 * way round in a webhook, whose request the API sends and whose responses the partner answers with.
 */
function sideOf(at: readonly string[], key: string, side: Side): Side {
  if (at.length !== 3 || !isMethod(at[2])) return side;
  const answered = key === 'responses';
  return (at[0] === 'paths') === answered ? 'response' : 'request';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}
