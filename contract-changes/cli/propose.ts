/**
 * `npm run propose -- FILE…`: from recorded traffic, the smallest change to `openapi/` that would document what a
 * sandbox answered through the proxy and the contract does not (a status an operation does not list, a property no
 * schema of an answer names), as a unified diff a designer applies (`git apply`) or not.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleContract, prepareForDiff } from '../prepare.ts';
import { projectRoot } from '../releases.ts';
import { createSourceLines } from '../source-lines.ts';
import { patchText } from '../review/formats/traffic-words.ts';
import { readTrafficFile, TrafficProblem } from '../traffic/traffic-file.ts';
import { documentUndocumented } from '../traffic/traffic-review.ts';
import { exitWith, usageError } from './cli-support.ts';

/** As `npm run review` has it: a traffic file that cannot be read. */
const trafficProblemStatus = 7;

const help = `Usage: npm run propose -- FILE… [--out PATCH]

Reads recorded traffic (traffic documents: GET /_mock/requests/export of a mock in front of a sandbox, or its
--record-traffic FILE) and writes the smallest change to openapi/ that would document what the sandbox answered and
the contract does not: a status an operation does not list (reusing the response another operation documents for
it when its body fits), a property no schema of an answer names (added to the schema's file, with its type and the
value seen). Only the sandbox's own answers count (answeredBy: upstream), never the mock's.

The change is a unified diff of openapi/, printed (npm run --silent propose -- FILE > patch.diff) or written to
PATCH: apply it with git apply PATCH, then describe what it adds; each addition is listed on stderr with where it
was seen. Nothing is changed in openapi/.

  --out PATCH   write the diff to PATCH instead of printing it
  -h, --help    show this help

Exit status: 0 the diff is written (or there is nothing to document); 2 bad usage; ${trafficProblemStatus} a traffic file is refused
(traffic-unreadable, traffic-too-large, traffic-not-json, traffic-invalid, traffic-holds-credential), printed as
"propose: error[CODE]: …" on stderr.`;

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (error) {
    return usageError(`propose: error[usage]: ${(error as Error).message}\n\n${help}`);
  }
  if (parsed.values.help === true) return exitWith(help, 0);
  if (parsed.positionals.length === 0) return usageError(`propose: error[usage]: name at least one traffic file.\n\n${help}`);
  let files;
  try {
    files = await Promise.all(parsed.positionals.map((file) => readTrafficFile(file)));
  } catch (error) {
    if (error instanceof TrafficProblem) return exitWith(`propose: error[${error.code}]: ${error.message}`, trafficProblemStatus);
    throw error;
  }
  const root = join(projectRoot, 'openapi', 'openapi.yaml');
  const bundled = await bundleContract(root);
  const documentation = documentUndocumented(files, { bundled, prepared: await prepareForDiff(bundled), projectRoot, placeOf: createSourceLines(root, projectRoot) });
  const upstream = files.reduce((sum, { document }) => sum + document.exchanges.filter((exchange) => exchange.answeredBy === 'upstream').length, 0);
  if (upstream === 0) {
    console.error('propose: nothing to document: no answer here is a sandbox\'s (answeredBy: upstream). Record through the mock as a proxy: npm start -- --upstream URL --record-traffic FILE.');
    return 0;
  }
  if (documentation.patches.length === 0 && documentation.unplaced.length === 0) {
    console.error(`propose: nothing to document: the contract documents every status and property of the ${upstream} answers of the sandbox here.`);
    return 0;
  }
  for (const patch of documentation.patches) console.error(`propose: ${patchText(patch)}`);
  for (const text of documentation.unplaced) console.error(`propose: ${text}`);
  if (parsed.values.out === undefined) process.stdout.write(documentation.diff);
  else {
    await writeFile(parsed.values.out, documentation.diff);
    console.error(`propose: wrote ${parsed.values.out}: apply it with git apply ${parsed.values.out}`);
  }
  return 0;
}

process.exitCode = await main().catch((error: unknown) => exitWith(`propose: error[internal]: ${(error as Error).message}`, 2));
