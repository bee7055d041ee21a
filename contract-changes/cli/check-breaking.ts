/**
 * `npm run check:breaking`: fails when the working contract (openapi/) could break a partner built on the latest
 * released contract (releases/). Run by `npm test`.
 */
import { parseArgs } from 'node:util';
import { readAccepted } from '../accepted.ts';
import { compareContracts, unacceptedBreaking } from '../compare.ts';
import { createPlacer, plural, toEntries } from '../entries.ts';
import { bundleContract } from '../prepare.ts';
import { formatBreakingReport } from '../report.ts';
import { contractRoot, formatVersion, listReleases, parseVersion, projectRoot, readRelease } from '../releases.ts';
import { createSourceLines } from '../source-lines.ts';
import { exitWith, usageError } from './cli-support.ts';

const help = `Usage: npm run check:breaking [-- --against VERSION] [--json]

Compares the contract in openapi/ with a released one (the latest in releases/ unless --against names another)
and exits with 1 when a change could break a partner's integration, printing each breaking edit once, at its file
and line under openapi/, with where it applies (operations, request or response), why it breaks and a JSON Pointer. Other changes are counted, not listed:
\`npm run changelog\` lists them.

  --against VERSION   compare with this release instead of the latest
  --json              print every classified change as JSON instead of the report
  -h, --help          show this help`;

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { against: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help === true) return exitWith(help, 0);
  const releases = await listReleases();
  const latest = releases.at(-1);
  if (latest === undefined) return usageError('no released contract in releases/: release the first one with `npm run release:contract -- 1.0.0`.');
  const against = values.against === undefined ? latest : parseVersion(values.against);
  if (against === undefined || !releases.some((release) => formatVersion(release) === formatVersion(against))) {
    return usageError(`--against ${values.against ?? ''}: no such release (released: ${releases.map(formatVersion).join(', ')}).`);
  }
  const working = await bundleContract(contractRoot);
  const released = await readRelease(against);
  const { changes, unusedAccepted } = await compareContracts(released, working, await readAccepted());
  if (values.json === true) {
    console.log(JSON.stringify(changes, null, 2));
  } else {
    const place = createPlacer(createSourceLines(contractRoot, projectRoot), { before: released, after: working });
    console.log(formatBreakingReport(changes, `release ${formatVersion(against)}`, place));
    // Counted as edits of openapi/, as the report and the review list them.
    const others = toEntries(changes.filter((change) => change.category !== 'breaking' || change.accepted !== undefined).map((change) => place(change, false))).length;
    if (others > 0) console.log(`${plural(others, 'compatible change')} since ${formatVersion(against)}: \`npm run changelog\` lists them.`);
  }
  const versionProblem = checkInfoVersion(working, formatVersion(latest));
  if (versionProblem !== undefined) console.error(versionProblem);
  for (const entry of unusedAccepted) {
    console.error(`contract-changes/accepted-breaking-changes.yaml accepts a change that is not there (${entry.pointer ?? ''} ${entry.what ?? ''}): remove the entry. Reason given: ${entry.reason}`);
  }
  const failed = unacceptedBreaking(changes).length > 0 || versionProblem !== undefined || unusedAccepted.length > 0;
  return failed ? 1 : 0;
}

/** The working contract carries the version of the latest release until the next release sets a new one. */
function checkInfoVersion(working: Record<string, unknown>, latest: string): string | undefined {
  const version = (working.info as { version?: unknown } | undefined)?.version;
  if (version === latest) return undefined;
  return `openapi/openapi.yaml has info.version ${String(version)}, but the latest release is ${latest}: the version is set by \`npm run release:contract -- VERSION\`, not by hand.`;
}

process.exitCode = await main().catch((error: unknown) => exitWith(`check:breaking: ${(error as Error).message}`, 2));
