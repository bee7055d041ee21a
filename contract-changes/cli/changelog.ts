/** `npm run changelog`: the changes since the latest release as Markdown, grouped, for the reviewer of a change. */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { readAccepted } from '../accepted.ts';
import { unreleasedNotes } from '../changelog-file.ts';
import { compareContracts } from '../compare.ts';
import { bundleContract } from '../prepare.ts';
import { formatChangelogGroups } from '../report.ts';
import { bump, changelogFile, contractRoot, formatVersion, listReleases, readRelease } from '../releases.ts';
import { exitWith, usageError } from './cli-support.ts';

const help = `Usage: npm run changelog

Prints, as Markdown, the changes of the contract in openapi/ since the latest release in releases/, grouped as
breaking, added, changed and deprecated, with the hand-written notes waiting under "Unreleased" in CHANGELOG.md
and the version the next release must take at least. Changes nothing; \`npm run release:contract -- VERSION\`
writes them into CHANGELOG.md.

  -h, --help   show this help`;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) return exitWith(help, 0);
  const latest = (await listReleases()).at(-1);
  if (latest === undefined) return usageError('no released contract in releases/: release the first one with `npm run release:contract -- 1.0.0`.');
  const { changes, level } = await compareContracts(await readRelease(latest), await bundleContract(contractRoot), await readAccepted());
  const notes = unreleasedNotes(await readFile(changelogFile, 'utf8').catch(() => ''));
  const lines = ['## Unreleased', ''];
  if (notes !== '') lines.push(notes, '');
  if (level === 'none') {
    lines.push(`No change to the contract since ${formatVersion(latest)}.`);
  } else {
    lines.push(`Since ${formatVersion(latest)}; the next release is at least **${formatVersion(bump(latest, level))}** (${level}).`, '');
    lines.push(formatChangelogGroups(changes));
  }
  console.log(lines.join('\n'));
  return 0;
}

process.exitCode = await main().catch((error: unknown) => exitWith(`changelog: ${(error as Error).message}`, 2));
