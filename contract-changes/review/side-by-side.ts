/**
 * Two views of an operation (operation-views.ts) lined up row by row, as a split diff: lines both have side by
 * side, a line that changed beside what it became, a line only one has beside nothing. What did not change is
 * folded into a count, except the lines a changed one sits under (its section and the fields that hold it), so that
 * each change reads in its place: `Response 200 › status › Enum: … "ON_HOLD" …` rather than a lone line.
 */
import type { ViewLine } from './operation-views.ts';

export type Row =
  | { kind: 'same' | 'changed'; before: ViewLine; after: ViewLine }
  | { kind: 'removed'; before: ViewLine }
  | { kind: 'added'; after: ViewLine }
  | { kind: 'folded'; lines: number };

/** Unchanged lines shown around a change, besides those it sits under. */
const context = 1;

export function sideBySide(before: readonly ViewLine[] = [], after: readonly ViewLine[] = []): Row[] {
  const rows = alignedRows(before, after);
  const shown = rows.map((row) => row.kind !== 'same');
  rows.forEach((row, index) => {
    if (row.kind === 'same') return;
    for (let near = Math.max(0, index - context); near <= Math.min(rows.length - 1, index + context); near += 1) shown[near] = true;
    let depth = lineOf(row).depth;
    for (let above = index - 1; above >= 0 && depth > 0; above -= 1) {
      if (lineOf(rows[above]!).depth < depth) {
        shown[above] = true;
        depth = lineOf(rows[above]!).depth;
      }
    }
  });
  const result: Row[] = [];
  rows.forEach((row, index) => {
    if (shown[index]) return void result.push(row);
    const last = result.at(-1);
    if (last?.kind === 'folded') last.lines += 1;
    else result.push({ kind: 'folded', lines: 1 });
  });
  return result;
}

type Aligned = Exclude<Row, { kind: 'folded' }>;

function lineOf(row: Aligned): ViewLine {
  return row.kind === 'removed' ? row.before : row.after;
}

/** Every line of both, in order: the longest common run of lines kept side by side, the rest paired where it can be. */
function alignedRows(before: readonly ViewLine[], after: readonly ViewLine[]): Aligned[] {
  const key = (line: ViewLine) => `${line.depth}\u0000${line.text}`;
  const [a, b] = [before.map(key), after.map(key)];
  // What both begin and end with is set aside first: the table below is then as large as the change, not the views.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  const same = (from: number, to: number, offset: number): Aligned[] =>
    before.slice(from, to).map((line, index) => ({ kind: 'same', before: line, after: after[from + offset + index]! }));
  return [
    ...same(0, start, 0),
    ...alignedMiddle(before.slice(start, before.length - end), after.slice(start, after.length - end), a.slice(start, a.length - end), b.slice(start, b.length - end)),
    ...same(before.length - end, before.length, after.length - before.length),
  ];
}

function alignedMiddle(before: readonly ViewLine[], after: readonly ViewLine[], a: readonly string[], b: readonly string[]): Aligned[] {
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const rows: Aligned[] = [];
  let removed: ViewLine[] = [];
  let added: ViewLine[] = [];
  const pairUp = () => {
    for (let index = 0; index < Math.max(removed.length, added.length); index += 1) {
      const [was, is] = [removed[index], added[index]];
      rows.push(was !== undefined && is !== undefined ? { kind: 'changed', before: was, after: is } : was !== undefined ? { kind: 'removed', before: was } : { kind: 'added', after: is! });
    }
    removed = [];
    added = [];
  };
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      pairUp();
      rows.push({ kind: 'same', before: before[i]!, after: after[j]! });
      [i, j] = [i + 1, j + 1];
    } else if (j >= b.length || (i < a.length && lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)) {
      removed.push(before[i]!);
      i += 1;
    } else {
      added.push(after[j]!);
      j += 1;
    }
  }
  pairUp();
  return rows;
}

/**
 * Where two versions of a line differ: the length of what they begin with and of what they end with alike, in whole
 * words (cut where a word starts), so that a page marks `"ON_HOLD" ` among an enum's values, or `taxId*` for
 * `taxId`, rather than the whole line or a letter.
 */
export function sharedEnds(before: string, after: string): { prefix: number; suffix: number } {
  const startsWord = (text: string, index: number) => index <= 0 || index >= text.length || /\s/.test(text[index - 1]!);
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix += 1;
  while (prefix > 0 && !(startsWord(before, prefix) && startsWord(after, prefix))) prefix -= 1;
  let suffix = 0;
  const most = Math.min(before.length, after.length) - prefix;
  while (suffix < most && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix += 1;
  while (suffix > 0 && !(startsWord(before, before.length - suffix) && startsWord(after, after.length - suffix))) suffix -= 1;
  return { prefix, suffix };
}
