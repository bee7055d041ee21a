/**
 * Breaking changes made on purpose within `v1`, each reviewed and given a reason (a security fix that refuses
 * input no legitimate client sends, say): contract-changes/accepted-breaking-changes.yaml lists them, and the gate
 * reports them as accepted instead of failing. An entry that matches nothing is an error, so the list never
 * outlives the changes it excuses; a release moves the accepted changes into the changelog and empties it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYaml } from '@redocly/openapi-core';
import type { ClassifiedChange } from './classify.ts';
import { projectRoot } from './releases.ts';

export const acceptedFile = join(projectRoot, 'contract-changes', 'accepted-breaking-changes.yaml');

export interface AcceptedEntry {
  /** A regular expression the change's JSON Pointer must match. */
  pointer?: string;
  /** A regular expression the change's description (`what`) must match. */
  what?: string;
  /** Why the break is accepted: it goes into the changelog. */
  reason: string;
}

export async function readAccepted(file = acceptedFile): Promise<AcceptedEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const parsed = parseYaml(text) as { accepted?: unknown } | null;
  const entries = parsed?.accepted ?? [];
  if (!Array.isArray(entries)) throw new Error(`${file}: \`accepted\` must be a list`);
  return entries.map((entry, index) => checkEntry(entry, `${file}: accepted[${index}]`));
}

function checkEntry(entry: unknown, where: string): AcceptedEntry {
  const { pointer, what, reason } = (entry ?? {}) as Record<string, unknown>;
  if (typeof reason !== 'string' || reason.trim().length < 20) throw new Error(`${where}: give a \`reason\` a reviewer and a partner can read`);
  if (pointer === undefined && what === undefined) throw new Error(`${where}: give \`pointer\` or \`what\` (regular expressions), or both`);
  for (const [name, value] of [['pointer', pointer], ['what', what]] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new Error(`${where}: \`${name}\` must be a regular expression, as text`);
    try {
      new RegExp(value, 'u');
    } catch (error) {
      throw new Error(`${where}: \`${name}\` is not a regular expression: ${(error as Error).message}`);
    }
  }
  return { reason: reason.trim(), ...(pointer === undefined ? {} : { pointer: pointer as string }), ...(what === undefined ? {} : { what: what as string }) };
}

export interface AcceptanceResult {
  changes: ClassifiedChange[];
  /** Entries that match no breaking change: stale, and an error. */
  unused: AcceptedEntry[];
}

/** Marks each breaking change an entry matches as accepted (a minor change, with the entry's reason). */
export function applyAccepted(changes: readonly ClassifiedChange[], entries: readonly AcceptedEntry[]): AcceptanceResult {
  const used = new Set<AcceptedEntry>();
  const marked = changes.map((change) => {
    if (change.category !== 'breaking') return change;
    const entry = entries.find((candidate) => matches(candidate, change));
    if (entry === undefined) return change;
    used.add(entry);
    return { ...change, level: 'minor' as const, accepted: entry.reason };
  });
  return { changes: marked, unused: entries.filter((entry) => !used.has(entry)) };
}

function matches(entry: AcceptedEntry, change: ClassifiedChange): boolean {
  return (entry.pointer === undefined || new RegExp(entry.pointer, 'u').test(change.location.pointer))
    && (entry.what === undefined || new RegExp(entry.what, 'u').test(change.what));
}

/** After a release: the accepted changes are in the changelog and the release; the list starts empty again. */
export async function clearAccepted(file = acceptedFile): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const header = text.split('\n').filter((line) => line.startsWith('#')).join('\n');
  await writeFile(file, `${header}\naccepted: []\n`);
}
