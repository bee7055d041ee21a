/**
 * The released contracts, one bundled file per version in releases/, and the semantic-version arithmetic that
 * says which version the next release may take.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../contract-model/document.ts';
import type { Level } from './classify.ts';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const releasesFolder = join(projectRoot, 'releases');
export const contractRoot = join(projectRoot, 'openapi', 'openapi.yaml');
export const changelogFile = join(projectRoot, 'CHANGELOG.md');

export interface Version {
  major: number;
  minor: number;
  patch: number;
}

const versionPattern = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

export function parseVersion(text: string): Version | undefined {
  const match = versionPattern.exec(text);
  if (match === null) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

export function formatVersion({ major, minor, patch }: Version): string {
  return `${major}.${minor}.${patch}`;
}

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export function bump(version: Version, level: Level): Version {
  if (level === 'major') return { major: version.major + 1, minor: 0, patch: 0 };
  if (level === 'minor') return { major: version.major, minor: version.minor + 1, patch: 0 };
  return { ...version, patch: version.patch + 1 };
}

export const releaseFileName = (version: string): string => `openapi-${version}.json`;

/** The released versions, oldest first. */
export async function listReleases(folder = releasesFolder): Promise<Version[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names
    .map((name) => /^openapi-(.+)\.json$/.exec(name)?.[1])
    .map((version) => (version === undefined ? undefined : parseVersion(version)))
    .filter((version): version is Version => version !== undefined)
    .sort(compareVersions);
}

export async function readRelease(version: Version, folder = releasesFolder): Promise<JsonObject> {
  return JSON.parse(await readFile(join(folder, releaseFileName(formatVersion(version))), 'utf8')) as JsonObject;
}

const levelsUp: Level[] = ['patch', 'minor', 'major'];

/** Why `version` cannot follow `latest` given the changes' level, or nothing when it can. */
export function refuseVersion(version: Version, latest: Version, level: Level | 'none'): string | undefined {
  const latestName = formatVersion(latest);
  if (level === 'none') return `nothing to release: the contract has not changed since ${latestName}.`;
  const allowed = levelsUp.slice(levelsUp.indexOf(level)).map((atLeast) => formatVersion(bump(latest, atLeast)));
  if (allowed.includes(formatVersion(version))) return undefined;
  return `${formatVersion(version)} does not fit the changes since ${latestName}: they need a ${level} release, so the version is ${allowed.join(' or ')}.`;
}
