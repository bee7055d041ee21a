/**
 * Whether every string one `pattern` accepts, another accepts too: what says that a changed pattern only narrowed
 * what a client receives (compatible) or only widened what it may send (compatible). Decided on the two regular
 * expressions' structure: the same structure (alternatives, groups, quantifiers, anchors), with each character or
 * class of the narrower one a subset of the other's (`.` → `[^\x00-\x1F]`, `\S` → `[^\s\x00-\x1F]`). Anything else
 * is not known to be included, and the change is judged as any other pattern change: breaking.
 */
import regexpTree from 'regexp-tree';

type Node = { type: string } & Record<string, unknown>;
/** Code points, as sorted, disjoint, inclusive ranges. */
type Ranges = [number, number][];

const maxCodePoint = 0x10ffff;

/** Whether every string `narrower` matches, `wider` matches too (known from their structure). */
export function patternIncludes(wider: string, narrower: string): boolean {
  if (wider === narrower) return true;
  try {
    // JSON Schema patterns are ECMA-262 regular expressions, matched with the `u` flag (as Ajv does).
    const [outer, inner] = [wider, narrower].map((pattern) => regexpTree.parse(`/${pattern.replaceAll('/', '\\/')}/u`) as unknown as Node);
    return included(inner!, outer!);
  } catch {
    return false;
  }
}

function included(inner: Node, outer: Node): boolean {
  const innerSet = characters(inner);
  const outerSet = characters(outer);
  if (innerSet !== undefined && outerSet !== undefined) return subset(innerSet, outerSet);
  if (inner.type !== outer.type) return false;
  switch (inner.type) {
    case 'RegExp':
      return inner.flags === outer.flags && included(inner.body as Node, outer.body as Node);
    case 'Alternative': {
      const [a, b] = [inner.expressions as Node[], outer.expressions as Node[]];
      return a.length === b.length && a.every((node, index) => included(node, b[index]!));
    }
    case 'Disjunction':
      return both(inner.left, outer.left) && both(inner.right, outer.right);
    case 'Group':
      return both(inner.expression, outer.expression);
    case 'Repetition':
      return same(inner.quantifier, outer.quantifier) && included(inner.expression as Node, outer.expression as Node);
    default:
      // Assertions (`^`, `$`, lookarounds), backreferences: only the same one is known to match the same.
      return same(inner, outer);
  }
}

/** Two optional subtrees (a `Disjunction` may have an empty side). */
function both(inner: unknown, outer: unknown): boolean {
  if (inner === null || outer === null || inner === undefined || outer === undefined) return inner === outer;
  return included(inner as Node, outer as Node);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The characters a `Char` or `CharacterClass` matches; nothing for other nodes. */
function characters(node: Node): Ranges | undefined {
  if (node.type === 'Char') return charRanges(node);
  if (node.type !== 'CharacterClass') return undefined;
  let set: Ranges = [];
  for (const member of node.expressions as Node[]) {
    const ranges = member.type === 'ClassRange' ? classRange(member) : charRanges(member);
    if (ranges === undefined) return undefined;
    set = union(set, ranges);
  }
  return node.negative === true ? complement(set) : set;
}

function classRange(node: Node): Ranges | undefined {
  const [from, to] = [(node.from as Node).codePoint, (node.to as Node).codePoint];
  return typeof from === 'number' && typeof to === 'number' ? [[from, to]] : undefined;
}

/** `\s` as ECMA-262 defines white space and line terminators. */
const whiteSpace: Ranges = normalize([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f],
  [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
]);
const digits: Ranges = [[0x30, 0x39]];
const wordCharacters: Ranges = normalize([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
const lineTerminators: Ranges = normalize([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);
const metaCharacters: Record<string, Ranges> = {
  '\\s': whiteSpace, '\\S': complement(whiteSpace), '\\d': digits, '\\D': complement(digits),
  '\\w': wordCharacters, '\\W': complement(wordCharacters), '.': complement(lineTerminators),
};

function charRanges(node: Node): Ranges | undefined {
  if (node.kind === 'meta') return metaCharacters[String(node.value)];
  return typeof node.codePoint === 'number' ? [[node.codePoint, node.codePoint]] : undefined;
}

function normalize(ranges: Ranges): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: Ranges = [];
  for (const [from, to] of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

const union = (a: Ranges, b: Ranges): Ranges => normalize([...a, ...b]);

function complement(ranges: Ranges): Ranges {
  const result: Ranges = [];
  let next = 0;
  for (const [from, to] of normalize(ranges)) {
    if (from > next) result.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= maxCodePoint) result.push([next, maxCodePoint]);
  return result;
}

function subset(inner: Ranges, outer: Ranges): boolean {
  return inner.every(([from, to]) => outer.some(([start, end]) => start <= from && to <= end));
}
