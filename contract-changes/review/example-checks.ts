/**
 * Examples that no longer validate: each example of the contract before the change (a request body, a response,
 * a parameter, a header) checked against the schema at the same place after it. One that was valid and is refused
 * now is a request a partner may have copied from the docs that stops working, or an answer the API gave that the
 * contract no longer allows. An example the change itself broke is the linter's to report.
 */
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { createSchemaCompiler, type SchemaCompiler } from '../../contract-model/schema-compiler.ts';
import { describeSchemaErrors } from '../../contract-model/schema-errors.ts';
import { formatPointer, valueAt } from '../location.ts';

export interface ExampleFailure {
  /** The example in the contract before the change (prepared): `…/content/application~1json/examples/minimal`. */
  pointer: string;
  /** What the schema now refuses in it. */
  problems: string[];
}

interface Place {
  path: string[];
  examples: [string[], unknown][];
}

/** Both contracts prepared (prepareForDiff): examples and schemas inline. */
export function examplesNoLongerValid(before: JsonObject, after: JsonObject): ExampleFailure[] {
  const compilers = { before: createSchemaCompiler(before as ContractDocument), after: createSchemaCompiler(after as ContractDocument) };
  const failures: ExampleFailure[] = [];
  for (const root of ['paths', 'webhooks']) {
    for (const place of examplePlaces(before[root], [root])) {
      const schemaPath = [...place.path, 'schema'];
      const [was, now] = [valueAt(before, schemaPath), valueAt(after, schemaPath)];
      if (!isObject(was) || !isObject(now) || JSON.stringify(was) === JSON.stringify(now)) continue;
      for (const [at, value] of place.examples) {
        const problems = refusal(compilers.after, now, value);
        if (problems.length === 0 || refusal(compilers.before, was, value).length > 0) continue;
        failures.push({ pointer: formatPointer([...place.path, ...at]), problems });
      }
    }
  }
  return failures;
}

function refusal(compiler: SchemaCompiler, schema: JsonObject, value: unknown): string[] {
  const validate = compiler.compile(schema);
  return validate(value) ? [] : describeSchemaErrors('the example', validate.errors);
}

/** Every media type, parameter and header with a schema and examples, below `node`; schemas are not entered. */
function examplePlaces(node: unknown, path: string[]): Place[] {
  if (!isObject(node)) return [];
  const places: Place[] = [];
  if (isObject(node.schema)) {
    const examples: [string[], unknown][] = [];
    if ('example' in node) examples.push([['example'], node.example]);
    if (isObject(node.examples) && !Array.isArray(node.examples)) {
      for (const [name, example] of Object.entries(node.examples)) {
        if (isObject(example) && 'value' in example) examples.push([['examples', name, 'value'], example.value]);
      }
    }
    if (examples.length > 0) places.push({ path, examples });
  }
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'schema' && key !== 'examples' && key !== 'example') places.push(...examplePlaces(value, [...path, key]));
  }
  return places;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}
