/**
 * The smallest change to `openapi/` that would document what a sandbox answered and the contract does not
 * (undocumented.ts): a property added to the schema file that would name it, a status added to the operation's
 * responses, as lines inserted at a file and line and a unified diff a designer can apply (`git apply`) or not. A
 * status reuses the response another operation documents for it when that response's body fits what was answered;
 * otherwise the status is described in place, its body by a schema of the contract that fits it. The designer
 * decides: each addition says where it was seen and asks to be described.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { getLocationForJsonPath, parseWithPointers } from '@stoplight/yaml';
import type { ContractDocument, JsonObject } from '../../contract-model/document.ts';
import { listOperations } from '../../contract-model/operations.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { formatPointer } from '../location.ts';
import type { SourceLines } from '../source-lines.ts';
import type { Recorded, Undocumented, UndocumentedField, UndocumentedStatus } from './undocumented.ts';
import { unifiedDiff, type Insertion } from './unified-diff.ts';

export interface DocumentationPatch {
  /** `property loyaltyTier`, `status 409 of getCustomer` */
  what: string;
  /** Where the lines go: the file under `openapi/` and the line of the map they are added to. */
  place: { file: string; line: number };
  /** The operations whose answers showed it. */
  operations: string[];
  seen: Recorded[];
  lines: string[];
}

export interface DocumentationPatches {
  patches: DocumentationPatch[];
  /** Every patch, as one unified diff of `openapi/`; empty when there is none. */
  diff: string;
  /** What was seen and could not be placed, each with why. */
  unplaced: string[];
}

interface Options {
  projectRoot: string;
  working: JsonObject;
  placeOf: SourceLines;
  /** A source file's YAML, parsed. */
  sourceData(file: string): unknown;
}

interface Placed {
  patch: DocumentationPatch;
  insertion: Insertion;
}

export function documentationPatches(found: readonly Undocumented[], contract: { projectRoot: string; working: JsonObject; placeOf: SourceLines }): DocumentationPatches {
  // Each source file's YAML, parsed once for this contract.
  const parsedFiles = new Map<string, unknown>();
  const sourceData = (file: string): unknown => {
    if (!parsedFiles.has(file)) parsedFiles.set(file, parseWithPointers(readFileSync(file, 'utf8')).data);
    return parsedFiles.get(file);
  };
  const options: Options = { ...contract, sourceData };
  const placed: Placed[] = [];
  const unplaced: string[] = [];
  // Compiled only when a status is to be documented.
  let reusable: Reusable[] | undefined;
  for (const each of found) {
    const result = each.kind === 'field' ? fieldPatch(each, options) : statusPatch(each, options, (reusable ??= reusableResponses(options)));
    if (typeof result === 'string') unplaced.push(result);
    else mergeInto(placed, result);
  }
  const byFile = new Map<string, Placed[]>();
  for (const each of placed) byFile.set(each.patch.place.file, [...(byFile.get(each.patch.place.file) ?? []), each]);
  const diff = [...byFile].sort(([a], [b]) => a.localeCompare(b)).map(([file, patches]) => unifiedDiff(file, readFileSync(join(options.projectRoot, file), 'utf8'), patches.map((each) => each.insertion))).join('');
  return { patches: placed.map((each) => each.patch), diff, unplaced };
}

/** The same addition seen through several uses of one schema is one patch. */
function mergeInto(placed: Placed[], next: Placed): void {
  const same = placed.find((each) => each.patch.place.file === next.patch.place.file && each.patch.place.line === next.patch.place.line && each.patch.what === next.patch.what);
  if (!same) {
    placed.push(next);
    return;
  }
  same.patch.seen.push(...next.patch.seen);
  same.patch.operations = [...new Set([...same.patch.operations, ...next.patch.operations])];
}

/** A map in a source file: where it is, how its entries are indented, and the line an entry is added after. */
interface SourceMap {
  file: string;
  line: number;
  entryIndent: string;
  /** Its entries' names, and the line each begins on (1-based). */
  entries: { name: string; line: number }[];
  endLine: number;
}

function sourceMap(projectRoot: string, file: string, path: readonly string[]): SourceMap | undefined {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  const parsed = parseWithPointers(text);
  const range = getLocationForJsonPath(parsed, [...path])?.range;
  let node: unknown = parsed.data;
  for (const segment of path) node = (node as Record<string, unknown> | undefined)?.[segment];
  if (range === undefined || typeof node !== 'object' || node === null) return undefined;
  const lines = text.split('\n');
  const first = lines.slice(range.start.line + 1).find((line) => line.trim() !== '' && !line.trim().startsWith('#'));
  const entryIndent = /^ */.exec(first ?? '')![0];
  // A map written inline (`{ a: 1 }`) has no lines of its own to add one to.
  if (entryIndent.length <= /^ */.exec(lines[range.start.line] ?? '')![0].length) return undefined;
  const entries = Object.keys(node).map((name) => ({ name, line: (getLocationForJsonPath(parsed, [...path, name])?.range.start.line ?? range.end.line) + 1 }));
  return { file, line: range.start.line + 1, entryIndent, entries, endLine: range.end.line + 1 };
}

function fieldPatch(found: UndocumentedField, options: { projectRoot: string; placeOf: SourceLines }): Placed | string {
  const place = options.placeOf(`${found.schemaPointer}/properties`);
  const map = place.path.at(-1) === 'properties' ? sourceMap(options.projectRoot, place.file, place.path) : undefined;
  const what = `property ${found.name}`;
  if (map === undefined) return `${what}, seen in the answers of ${[...found.operations].join(', ')}: add it by hand to the schema at ${place.file}:${place.line}`;
  const indent = map.entryIndent;
  const lines = [
    `${indent}${yamlKey(found.name)}:`,
    `${indent}  description: Seen in the sandbox's answers of ${[...found.operations].join(', ')}; say what it is.`,
    ...typeLines(found.value).map((line) => `${indent}  ${line}`),
  ];
  return { patch: { what, place: { file: map.file, line: map.line }, operations: [...found.operations], seen: [...found.seen], lines }, insertion: { afterLine: map.endLine, lines } };
}

/** A response another operation documents, as its source names it, and the schemas of its bodies. */
interface Reusable {
  status: string;
  /** The `$ref` as its file writes it, resolved to a file. */
  file: string;
  /** What it is found by in the source: the response, or its JSON body's schema. */
  kind: 'response' | 'schema';
  validate: (value: unknown) => boolean;
  uses: number;
}

/** Every response an operation documents by a `$ref` of its source, and every body schema it refers to by one. */
function reusableResponses(options: Options): Reusable[] {
  const compiler = schemaCompilerOf(options.working as ContractDocument);
  const byFile = new Map<string, Reusable>();
  for (const operation of listOperations(options.working as ContractDocument)) {
    for (const [status, response] of operation.responses) {
      const schema = response.content.get('application/json');
      if (schema === undefined) continue;
      const at = ['paths', operation.pathTemplate, operation.method.toLowerCase(), 'responses', status];
      for (const [kind, pointer] of [['response', at], ['schema', [...at, 'content', 'application/json', 'schema']]] as const) {
        const file = refFile(options, pointer);
        if (file === undefined) continue;
        const key = `${kind}\u0000${status}\u0000${file}`;
        const known = byFile.get(key) ?? { status, file, kind, validate: compiler.compile(schema), uses: 0 };
        known.uses += 1;
        byFile.set(key, known);
      }
    }
  }
  return [...byFile.values()].sort((a, b) => b.uses - a.uses);
}

/** The file a place of the contract refers to by a `$ref` in its source, if it does. */
function refFile(options: Options, segments: readonly string[]): string | undefined {
  const place = options.placeOf(formatPointer(segments));
  if (place.path.at(-1) !== segments.at(-1)) return undefined;
  let node: unknown = options.sourceData(join(options.projectRoot, place.file));
  for (const segment of place.path) node = (node as Record<string, unknown> | undefined)?.[segment];
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string' || ref.includes('#')) return undefined;
  return resolve(dirname(join(options.projectRoot, place.file)), decodeURI(ref));
}

function statusPatch(found: UndocumentedStatus, options: { projectRoot: string; placeOf: SourceLines }, reusable: readonly Reusable[]): Placed | string {
  const { operation, status } = found;
  const segments = ['paths', operation.pathTemplate, operation.method.toLowerCase(), 'responses'];
  const place = options.placeOf(formatPointer(segments));
  const what = `status ${status} of ${operation.operationId}`;
  const map = place.path.at(-1) === 'responses' ? sourceMap(options.projectRoot, place.file, place.path) : undefined;
  if (map === undefined) return `${what}: add it by hand to the responses at ${place.file}:${place.line}`;
  const from = (file: string) => relative(dirname(join(options.projectRoot, map.file)), file).split('\\').join('/');
  const fits = (candidate: Reusable) => found.body !== undefined && candidate.validate(found.body);
  const response = reusable.find((candidate) => candidate.kind === 'response' && candidate.status === String(status) && fits(candidate));
  const schema = reusable.find((candidate) => candidate.kind === 'schema' && fits(candidate));
  const indent = map.entryIndent;
  const body = response
    ? [`  $ref: ${from(response.file)}`]
    : [
        `  description: Seen in the sandbox's answers of ${operation.operationId}; say when it is answered.`,
        ...(schema ? ['  content:', '    application/json:', '      schema:', `        $ref: ${from(schema.file)}`] : []),
      ];
  const lines = [`${indent}'${status}':`, ...body.map((line) => `${indent}${line}`)];
  // In the order of the statuses: before the first one after it, or last.
  const next = map.entries.find((entry) => statusOrder(entry.name) > status);
  return { patch: { what, place: { file: map.file, line: map.line }, operations: [operation.operationId], seen: [...found.seen], lines }, insertion: { afterLine: next ? next.line - 1 : map.endLine, lines } };
}

const statusOrder = (key: string): number => (/^\d{3}$/.test(key) ? Number(key) : /^\dXX$/.test(key) ? Number(key[0]) * 100 + 99 : 1000);

function yamlKey(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) ? name : JSON.stringify(name);
}

/** The type a value has, as a schema says it, and the value as its example when it is short. */
function typeLines(value: unknown): string[] {
  const type = value === null ? "'null'" : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value === 'number' ? 'number' : typeof value;
  const example = JSON.stringify(value);
  return [`type: ${type}`, ...(example !== undefined && example.length <= 80 ? [`examples: [${example}]`] : [])];
}
