/**
 * Finds what changed between two contracts with `redocly diff` (the differ in the pinned @redocly/cli), run on
 * inputs prepared by prepare.ts. It finds the changes; judging them is classify.ts's job, because Redocly rates
 * changes the same on both sides of an exchange (a new enum value and a removed one are both "major", wherever
 * the enum is read or written).
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

export interface DetectedChange {
  kind: 'added' | 'removed' | 'modified';
  /** JSON Pointer (as a fragment, `#/paths/…`) of what changed: the node itself, or the modified keyword. */
  pointer: string;
  /** For `modified`: the keyword whose value changed. */
  property?: string;
  before?: unknown;
  after?: unknown;
  /** The rules of Redocly's `diff-recommended` set that fired on this change, with the impact they give it. */
  differRules: { rule: string; impact: string }[];
}

interface RedoclyChange {
  path: string;
  kind: DetectedChange['kind'];
  property?: string;
  base?: { value?: unknown };
  revision?: { value?: unknown };
  verdicts?: { ruleId: string; impact: string }[];
}

/** `before` and `after` must already be prepared (prepareForDiff). */
export async function detectChanges(before: JsonObject, after: JsonObject): Promise<DetectedChange[]> {
  const folder = await mkdtemp(join(tmpdir(), 'contract-diff-'));
  try {
    const beforeFile = join(folder, 'before.json');
    const afterFile = join(folder, 'after.json');
    await writeFile(beforeFile, JSON.stringify(before, hideFromDiffer, 1));
    await writeFile(afterFile, JSON.stringify(after, hideFromDiffer, 1));
    const report = await runRedoclyDiff(beforeFile, afterFile);
    // Redocly's differ sees a root extension's own keys but nothing nested below them: those are compared here.
    const found = report.changes.map(toDetectedChange).filter((change) => !isRootExtension(change.pointer));
    return [
      ...found,
      ...rootExtensionChanges(before, after),
      ...scopeChanges(before, after, new Set(found.map((change) => change.pointer))),
      ...wordingChanges(before, after, new Set(found.map((change) => change.pointer))),
    ];
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function runRedoclyDiff(beforeFile: string, afterFile: string): Promise<{ changes: RedoclyChange[] }> {
  const args = ['diff', beforeFile, afterFile, '--format', 'json', '--fail-on', 'none', '--config', join(here, 'redocly-diff.yaml')];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(redocly, args, { env, maxBuffer: 256 * 1024 * 1024 }));
  } catch (error) {
    const { stderr = '' } = error as { stderr?: string };
    throw new Error(`redocly diff failed: ${(error as Error).message}\n${stderr}`);
  }
  // The JSON report is followed by a human summary line; the report is the first JSON value in the output.
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('\n}');
  if (start < 0 || end < 0) throw new Error(`redocly diff printed no JSON report:\n${stdout}`);
  return JSON.parse(stdout.slice(start, end + 2)) as { changes: RedoclyChange[] };
}

function toDetectedChange(change: RedoclyChange): DetectedChange {
  const pointer = change.property === undefined ? change.path : `${change.path}/${escape(change.property)}`;
  return {
    kind: change.kind,
    pointer,
    ...(change.property === undefined ? {} : { property: change.property }),
    before: change.base?.value,
    after: change.revision?.value,
    differRules: (change.verdicts ?? []).map(({ ruleId, impact }) => ({ rule: ruleId, impact })),
  };
}

/**
 * Keywords that only word a schema, which the differ is not shown: it pairs the branches of a `oneOf` by likeness,
 * so one added throughout a branch (every pattern's `x-pattern-description`) made the branch look like another one,
 * reported as removed and added, which for a request is a breaking change. `wordingChanges` finds them instead.
 */
const hiddenFromDiffer = new Set(['x-pattern-description']);

function hideFromDiffer(key: string, value: unknown): unknown {
  return hiddenFromDiffer.has(key) ? undefined : value;
}

/** The keywords `wordingChanges` compares itself: examples, and those hidden from the differ. */
const wordingKeywords = new Set(['examples', 'example', ...hiddenFromDiffer]);

/**
 * Redocly's differ reports an `examples` that changed but not one that appeared or went (an `allOf` branch that only
 * gained `examples` is the case at hand), and is not shown the keywords of `hiddenFromDiffer`. This walk finds every
 * such keyword that differs between the two documents at the same place and was not reported already; they only
 * document, but the changelog lists them.
 */
export function wordingChanges(before: unknown, after: unknown, reported: Set<string>, at = '#'): DetectedChange[] {
  if (!isObject(before) || !isObject(after)) return [];
  const changes: DetectedChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const pointer = `${at}/${escape(key)}`;
    const [was, now] = [before[key], after[key]];
    if (wordingKeywords.has(key) && JSON.stringify(was) !== JSON.stringify(now)) {
      if (reported.has(pointer)) continue;
      // Reported as a modified keyword, the way Redocly reports a changed one, so that one rule judges both.
      changes.push({ kind: 'modified', pointer, property: key, before: was, after: now, differRules: [] });
    } else {
      changes.push(...wordingChanges(was, now, reported, pointer));
    }
  }
  return changes;
}

const isRootExtension = (pointer: string): boolean => pointer.startsWith('#/x-');

/**
 * Every value that differs below a root `x-` extension (`x-service-limits`), down to its leaves: a value that
 * appeared, went, or changed. An array is one value (a retry schedule is judged whole, not item by item).
 */
export function rootExtensionChanges(before: Record<string, unknown>, after: Record<string, unknown>): DetectedChange[] {
  const changes: DetectedChange[] = [];
  const walk = (was: unknown, now: unknown, pointer: string, property: string): void => {
    if (isMap(was) && isMap(now)) {
      for (const key of new Set([...Object.keys(was), ...Object.keys(now)])) walk(was[key], now[key], `${pointer}/${escape(key)}`, key);
    } else if (JSON.stringify(was) !== JSON.stringify(now)) {
      const kind = was === undefined ? 'added' : now === undefined ? 'removed' : 'modified';
      changes.push({ kind, pointer, property, ...(was === undefined ? {} : { before: was }), ...(now === undefined ? {} : { after: now }), differRules: [] });
    }
  };
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key.startsWith('x-')) walk(before[key], after[key], `#/${escape(key)}`, key);
  }
  return changes;
}

/**
 * Redocly's differ does not compare the scopes an OAuth flow offers (a map of scope names to their descriptions):
 * each scope that appeared, went or was reworded, per security scheme and flow, unless it was reported already.
 */
export function scopeChanges(before: Record<string, unknown>, after: Record<string, unknown>, reported: Set<string>): DetectedChange[] {
  const schemes = (document: Record<string, unknown>) => ((document.components as Record<string, unknown> | undefined)?.securitySchemes ?? {}) as Record<string, unknown>;
  const changes: DetectedChange[] = [];
  const [was, now] = [schemes(before), schemes(after)];
  for (const scheme of Object.keys(was).filter((name) => name in now)) {
    const flows = (value: unknown) => (isMap(value) && isMap(value.flows) ? value.flows : {});
    const [flowsWere, flowsAre] = [flows(was[scheme]), flows(now[scheme])];
    for (const flow of Object.keys(flowsWere).filter((name) => name in flowsAre)) {
      const scopes = (value: unknown) => (isMap(value) && isMap(value.scopes) ? value.scopes : {});
      const [scopesWere, scopesAre] = [scopes(flowsWere[flow]), scopes(flowsAre[flow])];
      for (const scope of new Set([...Object.keys(scopesWere), ...Object.keys(scopesAre)])) {
        const pointer = `#/components/securitySchemes/${escape(scheme)}/flows/${escape(flow)}/scopes/${escape(scope)}`;
        const [description, reworded] = [scopesWere[scope], scopesAre[scope]];
        if (description === reworded || reported.has(pointer)) continue;
        const kind = description === undefined ? 'added' : reworded === undefined ? 'removed' : 'modified';
        changes.push({ kind, pointer, property: scope, ...(description === undefined ? {} : { before: description }), ...(reworded === undefined ? {} : { after: reworded }), differRules: [] });
      }
    }
  }
  return changes;
}

const isMap = (value: unknown): value is Record<string, unknown> => isObject(value) && !Array.isArray(value);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
