/**
 * `npm run test:workflows`: lints contract-tests/arazzo/formation.arazzo.yaml, then runs its workflows with
 * Redocly Respect against the mock (built and started here) or against CONTRACT_BASE_URL, and exits with
 * Respect's status.
 */
import { resolve } from 'node:path';
import { newRunId } from '../support/fresh-ids.ts';
import { onInterrupt } from '../support/interrupt.ts';
import { runTool } from '../support/processes.ts';
import { binOf, projectPath, requireGenerated } from '../support/project-files.ts';
import { assertReachable } from '../support/reachability.ts';
import { parseRunnerArgs, runMain } from '../support/runner-cli.ts';
import { runAgainstTarget } from '../support/runner-target.ts';
import { readTargetVariables } from '../support/target-variables.ts';

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
const redocly = binOf('@redocly/cli', 'bin/cli.js');

function redoclyEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Redocly sends telemetry and checks for updates unless told not to; a test run should do neither.
  return { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', ...extra };
}

async function main(): Promise<number> {
  const { values: options, passthrough: respectArgs } = parseRunnerArgs(process.argv.slice(2), {
    help: { type: 'boolean', short: 'h' },
    verbose: { type: 'boolean' },
    har: { type: 'string' },
    workflow: { type: 'string', multiple: true },
  });
  if (options.help) {
    console.log(usage);
    return 0;
  }
  requireGenerated(['generated/openapi.json']);
  const external = readTargetVariables(process.env);
  const interrupt = onInterrupt();
  // An unreachable target is a usage error, said before anything runs (the lint included).
  if (external) await assertReachable(external.baseUrl);

  console.log(`Linting ${workflowsFile}`);
  const lintStatus = await runTool(process.execPath, [redocly, 'lint', `--config=${lintConfig}`, workflowsFile], {
    name: 'redocly lint',
    env: redoclyEnv(),
    timeoutMs: 60_000,
    signal: interrupt.signal,
  });
  if (interrupt.status() !== undefined) return interrupt.status() as number;
  if (lintStatus !== 0) {
    console.error(`\n${workflowsFile} does not pass redocly lint: fix it before running it.`);
    return lintStatus;
  }
  console.log();

  const runId = newRunId();
  return runAgainstTarget({
    name: 'arazzo',
    external,
    interrupt,
    tool(target, { signal }) {
      const inputs = { apiKey: target.apiKey, email: `arazzo.${runId}@example.com`, idempotencyKey: `arazzo-${runId}` };
      const args = [
        redocly,
        'respect',
        projectPath(workflowsFile),
        `--server=${sourceName}=${target.baseUrl}`,
        ...(options.har ? [`--har-output=${resolve(options.har)}`] : []),
        ...(options.workflow ?? []).flatMap((workflow) => ['--workflow', workflow]),
        ...(options.verbose ? ['--verbose'] : []),
        ...respectArgs,
      ];
      // The equivalent command, for running it by hand (inputs go through the environment, keeping the key out of ps).
      console.log(
        `Running redocly respect ${workflowsFile} --server ${sourceName}=${target.baseUrl} ` +
          `--input apiKey=dk_test_… --input email=${inputs.email} --input idempotencyKey=${inputs.idempotencyKey}`,
      );
      return runTool(process.execPath, args, {
        name: 'redocly respect',
        timeoutMs: respectTimeoutMs,
        signal,
        // Through the environment rather than --input: the API key stays out of process listings and CI logs.
        env: redoclyEnv({ REDOCLY_CLI_RESPECT_INPUT: JSON.stringify(inputs) }),
      });
    },
    hints: () => (options.har || options.verbose ? [] : ['To see every request and response, run again with --verbose or --har FILE.']),
  });
}

runMain(main);
