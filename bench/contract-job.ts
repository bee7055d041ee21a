/**
 * `npm run bench:contract-job`: how long CI's contract job takes on this machine as a team gets it. The GitHub
 * template's contract job (.github/workflows/contract.yml) runs step by step as in its test
 * (tests/contract-changes/support/ci-runner.ts), in a clean copy of the repository on a pull request with one
 * compatible edit (an optional `middleName` in createCustomer's request), with no `redis-server`, Chromium or Chrome
 * on the PATH, `CI=true` and no token. `npm ci` runs from npm's cache as a runner's `cache: npm` gives it. Prints each
 * step's wall-clock and CPU time (its processes', GNU time), the checks' own stages, the job's total and the load
 * average; a benchmark, not a test: the numbers are read, not asserted.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { parseYaml } from '@redocly/openapi-core';
import { createCiMachine } from '../tests/contract-changes/support/ci-machine.ts';
import { createCommandRunner, runGithubJob, type GithubJob } from '../tests/contract-changes/support/ci-runner.ts';

const root = new URL('../', import.meta.url).pathname;
const workflow = parseYaml(await readFile(join(root, '.github/workflows/contract.yml'), 'utf8')) as { jobs: Record<string, GithubJob> };
const contexts: Record<string, string> = {
  'github.event_name': 'pull_request', 'github.base_ref': 'main', 'github.server_url': 'https://github.example',
  'github.repository': 'partner/contract', 'github.event.pull_request.head.sha': 'abc123', 'github.event.pull_request.number': '7',
  'github.run_id': '99', 'secrets.GITHUB_TOKEN': '',
};
const load = () => loadavg().map((value) => value.toFixed(1)).join(' ');

const machine = await createCiMachine();
try {
  await machine.propose('openapi/components/schemas/CustomerCreateRequest.yaml', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n', '  phoneNumber:\n    $ref: ./PhoneNumber.yaml\n  middleName:\n    $ref: ./PersonName.yaml\n');
  const loadBefore = load();
  const job = await runGithubJob(workflow.jobs.contract!, createCommandRunner(machine.folder, machine.env, new Set(), { cpu: true }), contexts);
  console.log(`The contract job of .github/workflows/contract.yml on a compatible pull request (load average ${loadBefore} before, ${load()} after)\n`);
  console.log('| step | wall-clock | CPU |\n|---|---|---|');
  for (const { step, ran } of job.steps) {
    if (ran === undefined) continue;
    console.log(`| ${step.name ?? step.run} | ${ran.seconds.toFixed(1)} s | ${ran.cpu?.toFixed(1) ?? '?'} s |`);
  }
  const ran = job.steps.flatMap(({ ran: result }) => (result === undefined ? [] : [result]));
  const total = (pick: (result: (typeof ran)[number]) => number) => ran.reduce((sum, result) => sum + pick(result), 0).toFixed(1);
  console.log(`| **the job** (${job.code === 0 ? 'passed' : 'failed'}) | **${total((result) => result.seconds)} s** | ${total((result) => result.cpu ?? 0)} s |`);
  const checks = ran.at(-1)!.stdout;
  console.log(`\nThe checks' stages, as their summary gives them:\n${checks.slice(checks.lastIndexOf('Summary')).trim()}`);
  if (job.code !== 0) process.exitCode = 1;
} finally {
  await machine.remove();
}
