/**
 * Lines added to files, as a unified diff (`git apply` takes it): each file once, its additions in hunks with three
 * lines of context, hunks that touch merged.
 */

export interface Insertion {
  /** Inserted after this line (1-based; 0 inserts at the top). */
  afterLine: number;
  lines: string[];
}

const context = 3;

/** `file`: as the diff names it (`openapi/…`); `text`: the file as it is. */
export function unifiedDiff(file: string, text: string, insertions: readonly Insertion[]): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const sorted = [...insertions].sort((a, b) => a.afterLine - b.afterLine);
  const hunks: { from: number; to: number; insertions: Insertion[] }[] = [];
  for (const insertion of sorted) {
    const from = Math.max(1, insertion.afterLine - context + 1);
    const to = Math.min(lines.length, insertion.afterLine + context);
    const last = hunks.at(-1);
    if (last && from <= last.to + 1) {
      last.to = Math.max(last.to, to);
      last.insertions.push(insertion);
    } else hunks.push({ from, to, insertions: [insertion] });
  }
  const out = [`--- a/${file}`, `+++ b/${file}`];
  let added = 0;
  for (const hunk of hunks) {
    const body: string[] = [];
    const adding = hunk.insertions.reduce((sum, insertion) => sum + insertion.lines.length, 0);
    if (hunk.insertions[0]!.afterLine === 0) body.push(...hunk.insertions.filter((insertion) => insertion.afterLine === 0).flatMap((insertion) => insertion.lines.map((line) => `+${line}`)));
    for (let line = hunk.from; line <= hunk.to; line += 1) {
      body.push(` ${lines[line - 1] ?? ''}`);
      for (const insertion of hunk.insertions) if (insertion.afterLine === line) body.push(...insertion.lines.map((added) => `+${added}`));
    }
    const oldCount = hunk.to - hunk.from + 1;
    out.push(`@@ -${hunk.from},${oldCount} +${hunk.from + added},${oldCount + adding} @@`, ...body);
    added += adding;
  }
  return `${out.join('\n')}\n`;
}
