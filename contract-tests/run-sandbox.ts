/**
 * `npm run test:sandbox`: the contract suite against a sandbox named by the environment. Says what is missing
 * before anything starts, rather than letting the suite fall back to the mock or fail with a stack trace.
 */
import { fileURLToPath } from 'node:url';
import { onInterrupt } from './support/interrupt.ts';
import { proxyViolationsReport } from './support/proxy-report.ts';
import { runTool } from './support/processes.ts';
import { readExternalTarget } from './support/target-env.ts';
import { envValue, requiredTargetVariables, TargetConfigError } from './support/target-variables.ts';

const optionalVariables = [
  ['CONTRACT_API_KEY_2', "another partner's dk_test_ key, for the isolation checks"],
  ['CONTRACT_WEBHOOK_URL', 'the URL the sandbox delivers webhooks to (your endpoint, or a tunnel to this machine)'],
  ['CONTRACT_WEBHOOK_SECRET', "that endpoint's signing secret (whsec_…)"],
  ['CONTRACT_WEBHOOK_LISTEN_PORT', "the local port the suite's receiver listens on (default: the port of CONTRACT_WEBHOOK_URL)"],
  ['CONTRACT_WEBHOOK_LISTEN_HOST', 'the local address it listens on (default 127.0.0.1)'],
  ['CONTRACT_THROUGH_PROXY', 'set to 1 when CONTRACT_BASE_URL is the mock as a proxy in front of the sandbox (--upstream): the run ends with its violations report'],
  ['CONTRACT_ADMIN_TOKEN', "that proxy's admin token, when it runs with --admin-token"],
  ['CONTRACT_MAX_RPS', "the suite's pace in requests per second (default 20, under the sandbox's 25; 0: no limit)"],
] as const;

function usage(problem: string): never {
  const width = Math.max(...[...requiredTargetVariables, ...optionalVariables].map(([name]) => name.length)) + 2;
  const line = ([name, what]: readonly [string, string]) =>
    `  ${name.padEnd(width)}${envValue(process.env, name) ? '(set)    ' : '(not set)'}  ${what}`;
  process.stderr.write(
    [
      `test:sandbox: ${problem}`,
      '',
      'Required:',
      ...requiredTargetVariables.map(line),
      'Optional:',
      ...optionalVariables.map(line),
      '',
      'To run the suite against the mock it starts itself, use: npm run test:contract',
      '',
    ].join('\n'),
  );
  process.exit(2);
}

const missing = requiredTargetVariables.filter(([name]) => envValue(process.env, name) === undefined).map(([name]) => name);
if (missing.length > 0) usage(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set.`);

let baseUrl: string | undefined;
let apiKey: string | undefined;
try {
  const target = readExternalTarget(process.env);
  baseUrl = target?.baseUrl;
  apiKey = target?.apiKey;
  for (const note of target?.notes ?? []) process.stdout.write(`test:sandbox: ${note}\n`);
} catch (error) {
  if (error instanceof TargetConfigError) usage(error.message);
  throw error;
}

const vitest = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
// Ctrl-C stops the suite, and the exit status says which signal, as the other runners do.
const interrupt = onInterrupt();
const started = new Date().toISOString();
const status = await runTool(process.execPath, [vitest, 'run', '-c', 'contract-tests/vitest.config.ts', ...process.argv.slice(2)], {
  name: 'vitest',
  signal: interrupt.signal,
});
// Through the mock as a proxy (--upstream), the run ends with what the proxy saw break the contract. Only when told:
// the suite uses nothing outside the contract, and a real sandbox has no /_mock/ routes to ask.
if (baseUrl !== undefined && envValue(process.env, 'CONTRACT_THROUGH_PROXY') === '1' && interrupt.status() === undefined) {
  const report = await proxyViolationsReport(baseUrl, { since: started, ...(apiKey ? { apiKey } : {}), ...(process.env.CONTRACT_ADMIN_TOKEN ? { adminToken: process.env.CONTRACT_ADMIN_TOKEN } : {}) }).catch(() => undefined);
  if (report !== undefined) process.stdout.write(`\n${report}\n`);
}
process.exit(interrupt.status() ?? status);
