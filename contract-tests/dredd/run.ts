/**
 * `npm run test:dredd`: runs Dredd against the mock (built and started here) or against CONTRACT_BASE_URL, with
 * the hooks in hooks.ts, and exits with Dredd's status.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newRunId } from '../support/fresh-ids.ts';
import { onInterrupt } from '../support/interrupt.ts';
import { runTool } from '../support/processes.ts';
import { binOf, projectPath, requireGenerated } from '../support/project-files.ts';
import { parseRunnerArgs, runMain } from '../support/runner-cli.ts';
import { runAgainstTarget } from '../support/runner-target.ts';
import { readTargetVariables } from '../support/target-variables.ts';
import { writeDreddDescription } from './description.ts';
import { hooksEnvironment } from './hooks-environment.ts';

const usage = `Usage: npm run test:dredd [-- options] [-- dredd options]

Runs Dredd 14 over every documented response of generated/openapi.dereferenced.json, with the hooks in
contract-tests/dredd/hooks.ts: they authenticate, chain real ids from one transaction to the next, and set up
each error response (faults for 429/500/503 come from the mock's /_mock/faults). Dredd compares bodies with the
examples by their keys only; on the mock, the run also fails when the mock journaled an answer that breaks the
contract's schemas.

Target:
  default                 builds the mock (scripts/build-mock.mjs) and starts it on a free port
  CONTRACT_BASE_URL=URL   tests that server instead, with CONTRACT_API_KEY=dk_test_…
                          (429/500/503 are then skipped: only the mock can produce them on demand)

Options:
  --verbose               Dredd's warnings, and request/response details of passing transactions too
  --xunit FILE            also write an xUnit report to FILE
  --help                  print this help
  -- ARGS                 pass the remaining arguments to Dredd (e.g. -- --only "/v1/partner/customers > …")
`;

const dreddTimeoutMs = 5 * 60_000;
const hookFile = 'contract-tests/dredd/hooks.ts';

async function main(): Promise<number> {
  const { values: options, passthrough: dreddArgs } = parseRunnerArgs(process.argv.slice(2), {
    help: { type: 'boolean', short: 'h' },
    verbose: { type: 'boolean' },
    xunit: { type: 'string' },
  });
  if (options.help) {
    console.log(usage);
    return 0;
  }
  requireGenerated(['generated/openapi.dereferenced.json', 'generated/openapi.json']);
  const external = readTargetVariables(process.env);
  const runId = newRunId();
  let hooksLoaded = true;

  return runAgainstTarget({
    name: 'dredd',
    external,
    interrupt: onInterrupt(),
    async tool(target, { runDir, signal }) {
      const description = join(runDir, 'openapi.dredd.json');
      writeDreddDescription(projectPath('generated/openapi.dereferenced.json'), description);
      const loadedMarker = join(runDir, 'hooks-loaded');
      const args = [
        // Dredd's bundled winston prints a Node warning about a circular import at every start: not ours to fix.
        '--no-warnings',
        // The hooks are TypeScript: Dredd `require`s them, through tsx's loader.
        '--import',
        'tsx',
        binOf('dredd', 'bin/dredd'),
        description,
        target.baseUrl,
        `--hookfiles=${hookFile}`,
        '--language=nodejs',
        // POSTs first: the creates make what the GETs read (see hooks.ts).
        '--sorted',
        // Dredd's warnings are about OpenAPI 3.1 keywords its 3.0 parser does not know: noise unless asked for.
        `--loglevel=${options.verbose ? 'warning' : 'error'}`,
        ...(options.verbose ? ['--details'] : []),
        ...(process.stdout.isTTY ? [] : ['--no-color']),
        ...(options.xunit ? ['--reporter=xunit', `--output=${resolve(options.xunit)}`] : []),
        // Dredd looks for ./dredd.yml by default; the command line is the whole configuration.
        `--config=${join(runDir, 'no-dredd.yml')}`,
        ...dreddArgs,
      ];
      console.log('Running Dredd on generated/openapi.dereferenced.json (a copy reduced to what Dredd reads)\n');
      const status = await runTool(process.execPath, args, {
        name: 'Dredd',
        timeoutMs: dreddTimeoutMs,
        signal,
        env: { ...process.env, ...hooksEnvironment({ target, runId, loadedMarker }) },
      });
      // Dredd skips a hook file it cannot load with a warning, which --loglevel=error hides, and runs on without it.
      hooksLoaded = signal.aborted || existsSync(loadedMarker);
      if (!hooksLoaded) console.error(`\nDredd did not load ${hookFile}, so no transaction was set up.`);
      return hooksLoaded ? status : status || 1;
    },
    hints: (runDir) => [
      `Dredd's input description: ${join(runDir, 'openapi.dredd.json')}`,
      ...(hooksLoaded || options.verbose ? [] : ['Run again with --verbose to see why Dredd skipped the hook file.']),
    ],
  });
}

runMain(main);
