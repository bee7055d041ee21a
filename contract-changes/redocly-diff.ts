/**
 * `redocly diff` (the differ of the pinned @redocly/cli, with its `diff-recommended` rules) run as a CLI on two
 * documents: one of the candidates `npm run measure:differs` compares with the gate. The gate itself finds changes
 * in process (detect.ts); Redocly rates changes the same on both sides of an exchange, which is why it is not the
 * gate's judge (contract-changes/README.md).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { JsonObject } from '../contract-model/document.ts';

const here = dirname(fileURLToPath(import.meta.url));
const redocly = join(here, '..', 'node_modules', '.bin', 'redocly');

export interface RedoclyChange {
  path: string;
  kind: 'added' | 'removed' | 'modified';
  property?: string;
  /** The rules of `diff-recommended` that fired on this change, with the impact each gives it. */
  verdicts?: { ruleId: string; impact: string }[];
}

export async function redoclyDiff(before: JsonObject, after: JsonObject): Promise<RedoclyChange[]> {
  const folder = await mkdtemp(join(tmpdir(), 'contract-diff-'));
  try {
    const beforeFile = join(folder, 'before.json');
    const afterFile = join(folder, 'after.json');
    await writeFile(beforeFile, JSON.stringify(before, null, 1));
    await writeFile(afterFile, JSON.stringify(after, null, 1));
    const args = ['diff', beforeFile, afterFile, '--format', 'json', '--fail-on', 'none', '--config', join(here, 'redocly-diff.yaml')];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const { stdout } = await promisify(execFile)(redocly, args, { env, maxBuffer: 256 * 1024 * 1024 });
    // The JSON report is followed by a human summary line; the report is the first JSON value in the output.
    const start = stdout.indexOf('{');
    const end = stdout.lastIndexOf('\n}');
    if (start < 0 || end < 0) throw new Error(`redocly diff printed no JSON report:\n${stdout}`);
    return (JSON.parse(stdout.slice(start, end + 2)) as { changes: RedoclyChange[] }).changes;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Whether Redocly's own rules rate any change major. */
export const redoclySaysMajor = (changes: readonly RedoclyChange[]): boolean =>
  changes.some((change) => (change.verdicts ?? []).some((verdict) => verdict.impact === 'major'));
