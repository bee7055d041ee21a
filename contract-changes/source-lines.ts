/**
 * Where a place of the contract was written: the file under `openapi/` and its line, for a JSON Pointer into the
 * prepared contract (prepare.ts: every `$ref` inlined, every `allOf` merged). The pointer is walked through the
 * source files as the bundler reads them: a `$ref` continues in the file and at the fragment it names, and a
 * segment a merged schema has but its source does not is looked for in each `allOf` member. A place that is not
 * in the source (something removed) is found at the deepest part of its pointer that is: where it was removed.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { getLocationForJsonPath, parseWithPointers } from '@stoplight/yaml';
import type { YamlParserResult } from '@stoplight/yaml';
import { parsePointer } from './location.ts';

export interface SourcePlace {
  /** Relative to the folder given to `createSourceLines` (the project root), with `/` separators. */
  file: string;
  /** 1-based. */
  line: number;
  /** Where in the file, as segments (`properties`, `middleName`). */
  path: string[];
}

interface Walked {
  file: string;
  path: string[];
  /** How many segments of the pointer were found. */
  found: number;
}

type Parsed = YamlParserResult<unknown>;

/** The place of a pointer; a list item that was `removed` is numbered as it was, so it is found where its list is. */
export type SourceLines = (pointer: string, removed?: boolean) => SourcePlace;

/** `rootFile`: the contract's root (`openapi/openapi.yaml`); `projectRoot`: what the places are relative to. */
export function createSourceLines(rootFile: string, projectRoot: string): SourceLines {
  const files = new Map<string, Parsed>();
  const parsed = (file: string): Parsed => {
    let result = files.get(file);
    if (result === undefined) {
      result = parseWithPointers(readFileSync(file, 'utf8'));
      files.set(file, result);
    }
    return result;
  };
  const valueAt = (file: string, path: readonly string[]): unknown => {
    let node: unknown = parsed(file).data;
    for (const segment of path) node = isObject(node) ? node[segment] : undefined;
    return node;
  };

  /** Follows `$ref`s at (file, path) to the node they name. */
  const followRefs = (file: string, path: string[]): { file: string; path: string[] } => {
    for (let hops = 0; hops < 32; hops += 1) {
      const node = valueAt(file, path);
      const ref = isObject(node) ? node.$ref : undefined;
      if (typeof ref !== 'string') break;
      const [target = '', fragment = ''] = ref.split('#');
      file = target === '' ? file : resolve(dirname(file), decodeURI(target));
      path = parsePointer(`#${fragment}`);
    }
    return { file, path };
  };

  const walk = (file: string, path: string[], segments: readonly string[], found: number): Walked => {
    if (found === segments.length) return { file, path, found };
    // A `$ref` is followed only to go deeper: a change to the reference itself was made where it is written.
    ({ file, path } = followRefs(file, path));
    const node = valueAt(file, path);
    const segment = segments[found]!;
    if (isObject(node) && segment in node) return walk(file, [...path, segment], segments, found + 1);
    let deepest: Walked = { file, path, found };
    const members = isObject(node) && Array.isArray(node.allOf) ? node.allOf : [];
    for (let index = 0; index < members.length; index += 1) {
      const attempt = walk(file, [...path, 'allOf', String(index)], segments, found);
      if (attempt.found > deepest.found) deepest = attempt;
      if (deepest.found === segments.length) break;
    }
    return deepest;
  };

  return (pointer, removed = false) => {
    const segments = parsePointer(pointer);
    if (removed && /^\d+$/.test(segments.at(-1) ?? '')) segments.pop();
    const { file, path } = walk(rootFile, [], segments, 0);
    const location = getLocationForJsonPath(parsed(file), path, true);
    return { file: relative(projectRoot, file).split('\\').join('/'), line: (location?.range.start.line ?? 0) + 1, path };
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
