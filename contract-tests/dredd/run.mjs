#!/usr/bin/env node
/**
 * `npm run test:dredd`: runs Dredd against the mock (built and started here) or against CONTRACT_BASE_URL, with
 * the hooks in hooks.cjs, and exits with Dredd's status.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  UsageError,
  binOf,
  buildMock,
  externalTarget,
  freshSandboxKey,
  makeRunDir,
  reportRun,
  settleWithMock,
  newRunId,
  onInterrupt,
  projectRoot,
  requireGenerated,
  runTool,
  startMock,
} from './run-support.mjs';

const usage = `Usage: npm run test:dredd [-- options] [-- dredd options]

Runs Dredd 14 over every documented response of generated/openapi.dereferenced.json, with the hooks in
contract-tests/dredd/hooks.cjs: they authenticate, chain real ids from one transaction to the next, and set up
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

function parseArguments(argv) {
  const options = { verbose: false, xunit: undefined, dreddArgs: [], help: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--') {
      options.dreddArgs = argv.slice(index + 1);
      break;
    }
    if (argument === '--help' || argument === '-h') options.help = true;
    else if (argument === '--verbose') options.verbose = true;
    else if (argument === '--xunit') {
      if (!argv[index + 1]) throw new UsageError('--xunit needs a file name.');
      options.xunit = resolve(argv[index + 1]);
      index += 1;
    } else throw new UsageError(`unknown option ${argument}. Run with --help to see the options.`);
  }
  return options;
}

/**
 * The dereferenced bundle, reduced to what Dredd 14 reads, in a copy (generated/ itself is never touched):
 *
 * Only `paths` (and the security schemes they name) are kept, without the schemas of responses and of request
 *   bodies that have examples. Dredd 14 compares bodies with the examples only and never reads those schemas, but
 *   it parses them and deep-clones the parse result before loading the hooks, which on the full 2.9 MB bundle
 *   takes about a minute. The transactions compiled from the copy are the same, request for request.
 */
function dreddDescription(source) {
  const document = JSON.parse(readFileSync(source, 'utf8'));
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !operation.responses) continue;
      delete operation.description;
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        if (media.examples || media.example !== undefined) delete media.schema;
      }
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          if (media.examples || media.example !== undefined) delete media.schema;
        }
        for (const headerObject of Object.values(response.headers ?? {})) delete headerObject.description;
      }
    }
  }
  return {
    openapi: document.openapi,
    info: { title: document.info.title, version: document.info.version },
    servers: document.servers,
    security: document.security,
    paths: document.paths,
    components: { securitySchemes: document.components.securitySchemes },
  };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.help) {
    console.log(usage);
    return 0;
  }
  requireGenerated(['generated/openapi.dereferenced.json', 'generated/openapi.json']);
  const external = externalTarget(process.env);

  const runDir = makeRunDir('dredd');
  const runId = newRunId();
  const description = join(runDir, 'openapi.dredd.json');
  writeFileSync(description, JSON.stringify(dreddDescription(join(projectRoot, 'generated/openapi.dereferenced.json'))));

  let mock;
  const interrupted = onInterrupt();
  const logFile = join(runDir, 'mock.log');
  let status = 1;
  let failureNote;
  try {
    let target;
    if (external) {
      target = { ...external, mockAdmin: false };
      console.log(`Target: ${target.baseUrl} (CONTRACT_BASE_URL)`);
    } else {
      process.stdout.write('Building and starting the mock… ');
      await buildMock();
      mock = await startMock({ logFile, args: ['--formation-timeline', 'manual', '--rate-limit', '500000'] });
      console.log(mock.url);
      target = { baseUrl: mock.url, apiKey: freshSandboxKey(), mockAdmin: true };
    }

    const args = [
      // Dredd's bundled winston prints a Node warning about a circular import at every start: not ours to fix.
      '--no-warnings',
      binOf('dredd', 'bin/dredd'),
      description,
      target.baseUrl,
      '--hookfiles=contract-tests/dredd/hooks.cjs',
      '--language=nodejs',
      // POSTs first: the creates make what the GETs read (see hooks.cjs).
      '--sorted',
      // Dredd's warnings are about OpenAPI 3.1 keywords its 3.0 parser does not know: noise unless asked for.
      `--loglevel=${options.verbose ? 'warning' : 'error'}`,
      ...(options.verbose ? ['--details'] : []),
      ...(process.stdout.isTTY ? [] : ['--no-color']),
      ...(options.xunit ? ['--reporter=xunit', `--output=${options.xunit}`] : []),
      // Dredd looks for ./dredd.yml by default; the command line is the whole configuration.
      `--config=${join(runDir, 'no-dredd.yml')}`,
      ...options.dreddArgs,
    ];
    console.log('Running Dredd on generated/openapi.dereferenced.json (a copy reduced to what Dredd reads)\n');
    const dredd = runTool(process.execPath, args, {
      name: 'Dredd',
      timeoutMs: dreddTimeoutMs,
      env: {
        ...process.env,
        CONTRACT_BASE_URL: target.baseUrl,
        CONTRACT_API_KEY: target.apiKey,
        CONTRACT_RUN_ID: runId,
        CONTRACT_MOCK_ADMIN: target.mockAdmin ? '1' : '',
      },
    });
    status = await dredd.done;
    // The interrupt handler stops the mock and exits: nothing below applies.
    if (interrupted()) return new Promise(() => {});

    ({ status, note: failureNote } = await settleWithMock(mock, status));
  } catch (error) {
    if (interrupted()) return new Promise(() => {});
    if (error instanceof UsageError) throw error;
    console.error(`\nerror: ${error.message}`);
    status = 1;
  } finally {
    await mock?.stop();
  }
  reportRun({ status, runDir, logFile, note: failureNote, hints: [`Dredd's input description: ${description}`] });
  return status;
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    console.error(error instanceof UsageError ? `error: ${error.message}` : error);
    process.exitCode = 2;
  },
);
