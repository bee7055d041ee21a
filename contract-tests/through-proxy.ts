/**
 * `npm run test:contract:proxy`: the contract suite run through the mock as a proxy, the way a partner runs it
 * against the real sandbox (`npm run test:sandbox` with `CONTRACT_THROUGH_PROXY=1`), with a second mock playing the
 * sandbox. Requests go through the proxy to the sandbox; the sandbox's webhook events come back through the proxy's
 * webhook relay, which verifies them with the sandbox's secret and forwards them, re-signed, to the suite's
 * receiver. Passes when the suite passes, the proxy's report names nothing the upstream broke (answers, webhook
 * events), and events did pass through the relay. Nothing leaves this machine. The proxy records the traffic
 * (`--record-traffic`), kept in `.build/traffic/through-proxy.json` for a review to replay.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMock, startMockProcess, type MockProcess } from '../mock/launch/mock-process.ts';
import { newSandboxKey } from './support/fresh-ids.ts';
import { mockAdminClient } from './support/mock-admin.ts';
import { onInterrupt } from './support/interrupt.ts';
import { freePort } from './support/processes.ts';
import { projectRoot } from './support/project-files.ts';
import { runMain } from './support/runner-cli.ts';
import { keepRunTraffic, proxyTrafficPath } from './traffic/corpus.ts';

/** Both mocks answer the suite at its own pace: the published 25/s would turn its requests into 429s. */
const fast = ['--store', 'memory', '--rate-limit', '500000', '--formation-timeline', 'manual', '--webhook-retry-delays', '50ms,50ms,50ms'];

async function main(): Promise<number> {
  const interrupt = onInterrupt();
  const runDir = mkdtempSync(join(tmpdir(), 'contract-through-proxy-'));
  const started: MockProcess[] = [];
  try {
    await buildMock({ signal: interrupt.signal });
    const sandbox = await startMockProcess({ logDir: mkdtempSync(join(runDir, 'sandbox-')), args: fast, signal: interrupt.signal });
    started.push(sandbox);
    const proxy = await startMockProcess({ logDir: mkdtempSync(join(runDir, 'proxy-')), args: [...fast, '--upstream', sandbox.url, '--record-traffic', join(runDir, 'traffic.json')], signal: interrupt.signal });
    started.push(proxy);
    const [apiKey, apiKey2] = [newSandboxKey(), newSandboxKey()];
    // The suite's receiver listens on a port chosen now (it may be taken meanwhile: the run then fails, and says so).
    const receiverPort = await freePort();
    const relay = await wireRelay({ sandbox: sandbox.url, proxy: proxy.url, apiKey, receiverUrl: `http://127.0.0.1:${receiverPort}/webhooks` });

    const output = await runSandboxSuite({
      ...process.env,
      CONTRACT_BASE_URL: proxy.url,
      CONTRACT_API_KEY: apiKey,
      CONTRACT_API_KEY_2: apiKey2,
      CONTRACT_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/webhooks`,
      CONTRACT_WEBHOOK_SECRET: relay.receiverSecret,
      CONTRACT_THROUGH_PROXY: '1',
      CONTRACT_MAX_RPS: '0',
    }, interrupt.signal);
    if (output.status !== 0) return output.status;
    // The suite sends requests the contract refuses on purpose (its negative checks): rows of the request side are
    // its own. The upstream's answers and its webhook events must have kept the contract.
    const upstreamRows = output.text.split('\n').filter((line) => /^\| .* \| (response|webhook) \| \d+ \|/.test(line));
    if (!/Contract violations seen through the proxy/.test(output.text) || upstreamRows.length > 0) {
      console.error(`test:contract:proxy: ${upstreamRows.length > 0 ? 'the proxy saw the upstream break the contract (its report above)' : 'the run printed no report of the proxy'}.`);
      return 1;
    }
    const relayed = await relayedEvents(proxy.url, apiKey);
    if (relayed === 0) {
      console.error('test:contract:proxy: no webhook event came through the relay: the suite checked none that the sandbox sent.');
      return 1;
    }
    console.log(`test:contract:proxy: the suite passed through the proxy; ${relayed} webhook events came through its relay.`);
    await proxy.stop();
    keepRunTraffic(join(runDir, 'traffic.json'), proxyTrafficPath);
    return 0;
  } finally {
    await Promise.all(started.map((mock) => mock.stop()));
    rmSync(runDir, { recursive: true, force: true });
  }
}

/**
 * The partner's webhook set-up, as a team would make it: an endpoint on the proxy that delivers to the suite's
 * receiver and relays, and in the sandbox's portal an endpoint whose URL is that relay, whose secret the relay gets.
 */
async function wireRelay(options: { sandbox: string; proxy: string; apiKey: string; receiverUrl: string }): Promise<{ receiverSecret: string }> {
  const [proxy, sandbox] = [mockAdminClient(options.proxy, { apiKey: options.apiKey }), mockAdminClient(options.sandbox, { apiKey: options.apiKey })];
  const local = payloadOf('creating the receiver’s endpoint', await proxy.POST('/_mock/webhook-endpoints', { body: { url: options.receiverUrl, description: 'the suite’s receiver' } }));
  // Its relay URL first, as a sandbox's portal asks for it; the secret the sandbox then shows, after.
  const upstream = payloadOf('creating the sandbox’s endpoint', await sandbox.POST('/_mock/webhook-endpoints', { body: { url: local.relay.url, description: 'the proxy’s relay' } }));
  payloadOf('making it relay', await proxy.PATCH('/_mock/webhook-endpoints/{endpointId}', { params: { path: { endpointId: local.id } }, body: { relay: { secret: upstream.secret } } }));
  return { receiverSecret: local.secret };
}

async function relayedEvents(proxy: string, apiKey: string): Promise<number> {
  const page = payloadOf('reading the journal', await mockAdminClient(proxy, { apiKey }).GET('/_mock/requests', { params: { query: { operationId: 'relayWebhook', limit: 1000 } } }));
  const refused = page.data.filter((entry) => entry.webhook?.signature !== 'valid');
  if (refused.length > 0) throw new Error(`the relay refused ${refused.length} events the sandbox signed`);
  return page.data.length;
}

/** The payload of an admin answer, or an error saying what failed. */
function payloadOf<T>(what: string, result: { data?: { payload: T }; error?: { error?: { message?: string } }; response: Response }): T {
  if (!result.data) throw new Error(`${what}: ${result.response.status} ${result.error?.error?.message ?? ''}`);
  return result.data.payload;
}

/** `npm run test:sandbox` as a partner runs it, its output passed through and kept to read the report. */
function runSandboxSuite(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(projectRoot, 'node_modules/tsx/dist/cli.mjs'), 'contract-tests/run-sandbox.ts'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'inherit'], signal });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ status: code ?? 1, text }));
  });
}

runMain(main);
