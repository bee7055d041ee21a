/**
 * `npm run release:contract -- VERSION`: releases the contract in openapi/ as VERSION. Refuses a version that
 * does not fit the changes since the latest release (semantic versioning), writes the bundled contract to
 * releases/, sets info.version in openapi/openapi.yaml, regenerates generated/, and moves the unreleased changes
 * into CHANGELOG.md under VERSION and the date.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import type { JsonObject } from '../../contract-model/document.ts';
import { clearAccepted, readAccepted } from '../accepted.ts';
import { addRelease } from '../changelog-file.ts';
import { compareContracts } from '../compare.ts';
import { createPlacer } from '../entries.ts';
import { bundleContract } from '../prepare.ts';
import { formatBreakingReport, formatChangelogGroups } from '../report.ts';
import {
  changelogFile, contractRoot, formatVersion, listReleases, parseVersion, projectRoot, readRelease, refuseVersion,
  releaseFileName, releasesFolder,
} from '../releases.ts';
import { createSourceLines } from '../source-lines.ts';
import { exitWith, usageError } from './cli-support.ts';

const help = `Usage: npm run release:contract -- VERSION [--date YYYY-MM-DD] [--dry-run]

Releases the contract in openapi/ as VERSION (semantic versioning, e.g. 1.1.0):
  1. compares it with the latest release in releases/ and refuses a VERSION that does not fit the changes
     (breaking → next major, a new operation, field, webhook or enum value → next minor at least, descriptions
     and examples → next patch at least), or when nothing changed;
  2. writes the bundled contract, with info.version set, to releases/${releaseFileName('VERSION')};
  3. sets info.version in openapi/openapi.yaml and regenerates generated/;
  4. moves the notes under "Unreleased" in CHANGELOG.md, with the list of changes, under VERSION and the date.
Commit the result. The first release (no file in releases/ yet) accepts any VERSION.

  --date YYYY-MM-DD   the release date written in CHANGELOG.md (default: today, UTC)
  --dry-run           say what would be released, change nothing
  -h, --help          show this help`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { date: { type: 'string' }, 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help === true) return exitWith(help, 0);
  const [versionText, ...extra] = positionals;
  if (versionText === undefined || extra.length > 0) return usageError(`give exactly one VERSION.\n\n${help}`);
  const version = parseVersion(versionText.replace(/^v/, ''));
  if (version === undefined) return usageError(`"${versionText}" is not a semantic version MAJOR.MINOR.PATCH, such as 1.1.0.`);
  const date = values.date ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) return usageError(`--date ${date}: give a date as YYYY-MM-DD.`);

  const working = await bundleContract(contractRoot);
  const latest = (await listReleases()).at(-1);
  let changes = 'First release.';
  if (latest !== undefined) {
    const released = await readRelease(latest);
    const comparison = await compareContracts(released, working, await readAccepted());
    if (comparison.unusedAccepted.length > 0) {
      return usageError('contract-changes/accepted-breaking-changes.yaml accepts changes that are not there: `npm run check:breaking` names them.');
    }
    const refusal = refuseVersion(version, latest, comparison.level);
    if (refusal !== undefined) {
      const place = createPlacer(createSourceLines(contractRoot, projectRoot), { before: released, after: working });
      const breaking = comparison.level === 'major' ? `\n\n${formatBreakingReport(comparison.changes, `release ${formatVersion(latest)}`, place)}` : '';
      return usageError(`${refusal}${breaking}`);
    }
    changes = formatChangelogGroups(comparison.changes);
  }
  const name = formatVersion(version);
  if (values['dry-run'] === true) return exitWith(`Would release ${name} on ${date}:\n\n${changes}`, 0);

  await writeRelease(working, name);
  await clearAccepted();
  await setWorkingVersion(name);
  // The changelog first: the docs regenerated next show it (their Changes page).
  const changelog = await readFile(changelogFile, 'utf8').catch(() => '');
  await writeFile(changelogFile, addRelease(changelog, { version: name, date, changes }));
  await regenerate();
  return exitWith(`Released ${name}: releases/${releaseFileName(name)}, info.version in openapi/openapi.yaml, generated/ and CHANGELOG.md. Commit them.`, 0);
}

async function writeRelease(contract: JsonObject, version: string): Promise<void> {
  await mkdir(releasesFolder, { recursive: true });
  const released = { ...contract, info: { ...(contract.info as JsonObject), version } };
  await writeFile(join(releasesFolder, releaseFileName(version)), `${JSON.stringify(released, null, 2)}\n`, { flag: 'wx' })
    .catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EEXIST' ? new Error(`${version} is already released (releases/${releaseFileName(version)}).`) : error;
    });
}

/** Sets `info.version` in the root file, keeping its formatting and comments. */
async function setWorkingVersion(version: string): Promise<void> {
  const text = await readFile(contractRoot, 'utf8');
  const updated = text.replace(/^(info:\n(?:[ \t]+.*\n|\n)*?[ \t]+version:[ \t]*).*$/m, `$1${version}`);
  if (updated === text && !text.includes(`version: ${version}`)) throw new Error(`found no info.version in ${contractRoot}`);
  await writeFile(contractRoot, updated);
}

async function regenerate(): Promise<void> {
  await promisify(execFile)(join(projectRoot, 'node_modules', '.bin', 'tsx'), [join(projectRoot, 'scripts', 'generate.ts')], { cwd: projectRoot });
}

process.exitCode = await main().catch((error: unknown) => exitWith(`release:contract: ${(error as Error).message}`, 2));
