/**
 * Finds what changed between two prepared contracts (prepare.ts: every `$ref` inlined, every `allOf` merged), in
 * process: a walk of both documents side by side that knows which objects are maps of names chosen by the author
 * (paths, properties, responses, media types…), which lists hold items with an identity (parameters, servers,
 * security requirements, `oneOf` branches: pairing.ts), and which values are data to compare whole (an `enum`, an
 * example, a default). It finds the changes, each with its JSON Pointer; judging them is classify.ts's job.
 */
import type { JsonObject } from '../contract-model/document.ts';
import { formatPointer } from './location.ts';
import {
  pairByPosition, pairLeftovers, pairParameters, pairRequirements, pairServers, pairSubschemas, pairTags, type Pairs,
} from './pairing.ts';

export interface DetectedChange {
  kind: 'added' | 'removed' | 'modified';
  /**
   * JSON Pointer (as a fragment, `#/paths/…`) of what changed: the node itself, or the keyword whose value changed.
   * A list item is numbered as it is after the change, or before it when it was removed.
   */
  pointer: string;
  /** The last segment of the pointer: the keyword, or the name of the entry. */
  property: string;
  before?: unknown;
  after?: unknown;
}

/**
 * Objects whose keys are names the author chose: each entry is compared with the entry of the same name. So is
 * every map of `components` (prepare.ts leaves their names, and the security schemes whole).
 */
const maps = new Set([
  'paths', 'webhooks', 'properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'responses',
  'content', 'headers', 'scopes', 'callbacks', 'links', 'encoding', 'variables', 'mapping',
]);

/** Values that are data, not structure: compared whole, wherever they are. */
const data = new Set(['enum', 'const', 'default', 'example', 'examples', 'required', 'type']);

/** Lists whose items are matched by their identity; every other list is a value compared whole. */
const lists: Record<string, (before: readonly unknown[], after: readonly unknown[]) => Pairs> = {
  parameters: pairParameters,
  servers: pairServers,
  security: pairRequirements,
  tags: pairTags,
  oneOf: pairSubschemas,
  anyOf: pairSubschemas,
  allOf: pairSubschemas,
  prefixItems: pairByPosition,
};

type Segments = readonly (string | number)[];

export function detectChanges(before: JsonObject, after: JsonObject): DetectedChange[] {
  const changes: DetectedChange[] = [];
  const report = (at: Segments, was: unknown, now: unknown): void => {
    const kind = was === undefined ? 'added' : now === undefined ? 'removed' : 'modified';
    changes.push({ kind, pointer: formatPointer(at), property: String(at.at(-1) ?? ''), ...(was === undefined ? {} : { before: was }), ...(now === undefined ? {} : { after: now }) });
  };

  const compareValues = (at: Segments, was: unknown, now: unknown): void => {
    if (!equal(was, now)) report(at, was, now);
  };

  /** An object of keywords (an operation, a schema, a parameter…): each keyword by what its value is. */
  const compareKeywords = (at: Segments, was: JsonObject, now: JsonObject, root = false): void => {
    for (const key of keysOf(was, now)) {
      const [value, next] = [was[key], now[key]];
      const where = [...at, key];
      if (root && key.startsWith('x-')) compareLeaves(where, value, next);
      else if (root && key === 'components') for (const kind of keysOf(asMap(value), asMap(next))) compareMap([...where, kind], asMap(asMap(value)[kind]), asMap(asMap(next)[kind]), kind);
      else if (key.startsWith('x-') || data.has(key)) compareValues(where, value, next);
      else if (key in lists && isListOfObjects(value, next, key)) compareList(where, asList(value), asList(next), lists[key]!);
      else if (maps.has(key) && (isMap(value) || isMap(next))) compareMap(where, asMap(value), asMap(next), key);
      else if (isMap(value) && isMap(next)) compareKeywords(where, value, next);
      else compareValues(where, value, next);
    }
  };

  /** A map of names: entries compared by name; a lone entry renamed (same value, new name) is one change. */
  const compareMap = (at: Segments, was: JsonObject, now: JsonObject, keyword: string): void => {
    const removed = Object.keys(was).filter((name) => !(name in now));
    const added = Object.keys(now).filter((name) => !(name in was));
    const renamed = new Map<string, string>();
    if (keyword === 'paths') {
      // A path whose parameters were renamed is the same path: what a request sends is unchanged.
      for (const name of added) {
        const same = removed.filter((old) => pathShape(old) === pathShape(name));
        if (same.length === 1 && added.filter((other) => pathShape(other) === pathShape(name)).length === 1) renamed.set(name, same[0]!);
      }
    } else if (removed.length === 1 && added.length === 1 && equal(was[removed[0]!], now[added[0]!])) {
      renamed.set(added[0]!, removed[0]!);
    }
    const renamedFrom = new Set(renamed.values());
    for (const name of keysOf(was, now)) {
      if (renamedFrom.has(name)) continue;
      const old = renamed.get(name);
      if (old !== undefined) {
        report([...at, name, 'key'], old, name);
        compareNode([...at, name], was[old], now[name]);
      } else if (!(name in was) || !(name in now)) {
        report([...at, name], was[name], now[name]);
      } else {
        compareNode([...at, name], was[name], now[name]);
      }
    }
  };

  const compareList = (at: Segments, was: readonly unknown[], now: readonly unknown[], pair: (a: readonly unknown[], b: readonly unknown[]) => Pairs): void => {
    const pairs = pair(was, now);
    for (const [index, item] of was.entries()) {
      if (!pairs.some(([before]) => before === index)) report([...at, index], item, undefined);
    }
    for (const [index, item] of now.entries()) {
      const paired = pairs.find(([, after]) => after === index);
      if (paired === undefined) report([...at, index], undefined, item);
      else compareNode([...at, index], was[paired[0]], item);
    }
  };

  const compareNode = (at: Segments, was: unknown, now: unknown): void => {
    if (isMap(was) && isMap(now)) compareKeywords(at, was, now);
    else compareValues(at, was, now);
  };

  /** A root extension (`x-service-limits`): every value that differs, down to its leaves; a list is one value. */
  const compareLeaves = (at: Segments, was: unknown, now: unknown): void => {
    if (isMap(was) && isMap(now)) for (const key of keysOf(was, now)) compareLeaves([...at, key], was[key], now[key]);
    else compareValues(at, was, now);
  };

  compareKeywords([], before, after, true);
  return changes.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}

/** `/v1/widgets/{}`: a path as a request sees it, whatever its parameters are named. */
/**
 * Whether a list is walked item by item: its items are objects. A list that appears or goes is one value (a `oneOf`
 * where there was none narrows a schema; a `security` or `servers` list replaces the document's), except parameters,
 * each of which is judged on its own.
 */
function isListOfObjects(was: unknown, now: unknown, key: string): boolean {
  const items = [was, now].filter(Array.isArray).flat();
  const both = Array.isArray(was) && Array.isArray(now);
  return (both || key === 'parameters') && items.every(isMap);
}

const pathShape = (path: string): string => path.replace(/\{[^}]*\}/g, '{}');

const isMap = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const asMap = (value: unknown): JsonObject => (isMap(value) ? value : {});
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function keysOf(was: JsonObject, now: JsonObject): string[] {
  return [...new Set([...Object.keys(was), ...Object.keys(now)])];
}

export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => equal(item, other[index]));
  }
  const [left, right] = [a as JsonObject, b as JsonObject];
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && equal(left[key], right[key]));
}
