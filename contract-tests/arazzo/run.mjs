#!/usr/bin/env node
/**
 * `npm run test:workflows`: lints contract-tests/arazzo/formation.arazzo.yaml, then runs its workflows with
 * Redocly Respect against the mock (built and started here) or against CONTRACT_BASE_URL, and exits with
 * Respect's status.
 */
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
} from '../dredd/run-support.mjs';

const workflowsFile = 'contract-tests/arazzo/formation.arazzo.yaml';
const lintConfig = 'contract-tests/arazzo/redocly.yaml';
const sourceName = 'partnerApi';

const usage = `Usage: npm run test:workflows [-- options] [-- respect options]

Lints ${workflowsFile} (redocly lint), then runs its Arazzo workflows with
Redocly Respect, which checks every response's status, content type and body schema against the contract
besides each step's success criteria. Every run uses a fresh API key (on the mock), email and Idempotency-Key.

Target:
  default                 builds the mock (scripts/build-mock.mjs) and starts it on a free port
  CONTRACT_BASE_URL=URL   runs against that server instead, with CONTRACT_API_KEY=dk_test_…

Options:
  --workflow ID           run only this workflow (repeatable): formLlcAndGetDocuments, idempotentCustomerCreate
  --verbose               Respect's verbose output (requests and responses)
  --har FILE              also write every request and response to FILE (HAR, API key masked)
  --help                  print this help
  -- ARGS                 pass the remaining arguments to redocly respect
`;

const respectTimeoutMs = 3 * 60_000;

function parseArguments(argv) {
  const options = { workflows: [], verbose: false, har: undefined, respectArgs: [], help: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--') {
      options.respectArgs = argv.slice(index + 1);
      break;
    }
    if (argument === '--help' || argument === '-h') options.help = true;
    else if (argument === '--verbose') options.verbose = true;
    else if (argument === '--har') {
      if (!argv[index + 1]) throw new UsageError('--har needs a file name.');
      options.har = resolve(argv[index + 1]);
      index += 1;
    } else if (argument === '--workflow') {
      const workflow = argv[index + 1];
      if (!workflow) throw new UsageError('--workflow needs a workflow id.');
      options.workflows.push(workflow);
      index += 1;
    } else throw new UsageError(`unknown option ${argument}. Run with --help to see the options.`);
  }
  return options;
}

const redocly = binOf('@redocly/cli', 'bin/cli.js');

function redoclyEnv(extra = {}) {
  // Redocly sends telemetry and checks for updates unless told not to; a test run should do neither.
  return { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', ...extra };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.help) {
    console.log(usage);
    return 0;
  }
  requireGenerated(['generated/openapi.json']);
  const external = externalTarget(process.env);

  console.log(`Linting ${workflowsFile}`);
  const lintStatus = await runTool(process.execPath, [redocly, 'lint', `--config=${lintConfig}`, workflowsFile], { name: 'redocly lint', env: redoclyEnv(), timeoutMs: 60_000 }).done;
  if (lintStatus !== 0) {
    console.error(`\n${workflowsFile} does not pass redocly lint: fix it before running it.`);
    return lintStatus;
  }

  const runDir = makeRunDir('arazzo');
  const runId = newRunId();
  const logFile = join(runDir, 'mock.log');

  let mock;
  const interrupted = onInterrupt();
  let status = 1;
  let failureNote;
  try {
    let target;
    if (external) {
      target = external;
      console.log(`\nTarget: ${target.baseUrl} (CONTRACT_BASE_URL)`);
    } else {
      process.stdout.write('\nBuilding and starting the mock… ');
      await buildMock();
      mock = await startMock({ logFile, args: ['--formation-timeline', 'manual', '--rate-limit', '500000'] });
      console.log(mock.url);
      target = { baseUrl: mock.url, apiKey: freshSandboxKey() };
    }

    const inputs = { apiKey: target.apiKey, email: `arazzo.${runId}@example.com`, idempotencyKey: `arazzo-${runId}` };
    const args = [
      redocly,
      'respect',
      join(projectRoot, workflowsFile),
      `--server=${sourceName}=${target.baseUrl}`,
      ...(options.har ? [`--har-output=${options.har}`] : []),
      ...options.workflows.flatMap((workflow) => ['--workflow', workflow]),
      ...(options.verbose ? ['--verbose'] : []),
      ...options.respectArgs,
    ];
    // The equivalent command, for running it by hand (inputs go through the environment, keeping the key out of ps).
    console.log(
      `Running redocly respect ${workflowsFile} --server ${sourceName}=${target.baseUrl} ` +
        `--input apiKey=dk_test_… --input email=${inputs.email} --input idempotencyKey=${inputs.idempotencyKey}`,
    );
    const respect = runTool(process.execPath, args, {
      name: 'redocly respect',
      timeoutMs: respectTimeoutMs,
      // Through the environment rather than --input: the API key stays out of process listings and CI logs.
      env: redoclyEnv({ REDOCLY_CLI_RESPECT_INPUT: JSON.stringify(inputs) }),
    });
    status = await respect.done;
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
  reportRun({ status, runDir, logFile, note: failureNote, hints: options.har || options.verbose ? [] : ['To see every request and response, run again with --verbose or --har FILE.'] });
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
