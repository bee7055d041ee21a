/**
 * Resolves the target once for the whole run: the mock, built and started here as its own process with a
 * webhook receiver next to it, or the external target named by `CONTRACT_BASE_URL`. Hands the workers what they
 * need through `provide`, and afterwards prints the coverage table the last test file rendered, then stops
 * whatever it started. The mock it starts records the suite's traffic (`--record-traffic`), which is kept as the
 * run's traffic (traffic/corpus.ts): what a review of a contract change replays.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { newRunId, newSandboxKey } from './fresh-ids.ts';
import { buildMock, startMockProcess, type MockProcess } from '../../mock/launch/mock-process.ts';
import type { TargetInfo } from './provided.ts';
import { assertReachable } from './reachability.ts';
import { readExternalTarget } from './target-env.ts';
import { UsageError } from './usage-error.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { asFlags, mockWebhookSecret, suiteMockOptions } from './suite-mock-options.ts';
import { inProcessTarget, inProcessTargetAsked } from './in-process-target.ts';
import { keepRunTraffic } from '../traffic/corpus.ts';

export { mockWebhookSecret } from './suite-mock-options.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  try {
    return await setUp(project);
  } catch (error) {
    // The message is the whole story; a stack trace would only hide it.
    if (error instanceof UsageError) error.stack = `${error.name}: ${error.message}`;
    throw error;
  }
}

async function setUp(project: TestProject): Promise<() => Promise<void>> {
  const external = readExternalTarget(process.env);
  const runDir = mkdtempSync(join(tmpdir(), 'contract-tests-'));
  const runId = newRunId();
  const recordFile = join(runDir, 'records.jsonl');
  const tableFile = join(runDir, 'coverage.txt');
  const trafficFile = join(runDir, 'traffic.json');
  writeFileSync(recordFile, '');

  let mock: MockProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  let target: TargetInfo;
  try {
    if (inProcessTargetAsked(process.env)) {
      if (external !== undefined) throw new UsageError('CONTRACT_TARGET=in-process runs the suite against the mock in process: leave CONTRACT_BASE_URL unset.');
      // Nothing to start: each test file runs the mock in its own worker, behind Mock Service Worker.
      target = inProcessTarget({ runId, recordFile, tableFile });
    } else if (external === undefined) {
      receiver = await startWebhookReceiver({ port: 0, host: '127.0.0.1' });
      await buildMock();
      mock = await startMockProcess({
        logDir: runDir,
        args: [
          ...asFlags(suiteMockOptions),
          '--webhook-url', `http://127.0.0.1:${receiver.port}/webhooks`,
          // Short enough for the 408 checks (refusals-before-routing.test.ts) to wait for them, long enough that 200
          // concurrent creates on a loaded two-core machine all arrive whole before them.
          '--headers-timeout', '3s',
          '--request-timeout', '10s',
          '--record-traffic', trafficFile,
        ],
      });
      target = {
        kind: 'self-started-mock',
        description: `the mock, started by the suite at ${mock.url}`,
        baseUrl: mock.url,
        apiKey: newSandboxKey(),
        apiKey2: newSandboxKey(),
        mockAdmin: true,
        webhook: { secret: mockWebhookSecret, receiverUrl: receiver.controlUrl },
        runId,
        recordFile,
        tableFile,
        notes: [],
        maxRequestsPerSecond: null,
      };
    } else {
      await assertReachable(external.baseUrl);
      if (external.webhook) {
        receiver = await startWebhookReceiver({ port: external.webhook.listenPort, host: external.webhook.listenHost });
      }
      target = {
        kind: 'external',
        description: `${external.baseUrl} (CONTRACT_BASE_URL)`,
        baseUrl: external.baseUrl,
        apiKey: external.apiKey,
        apiKey2: external.apiKey2 ?? null,
        mockAdmin: false,
        webhook: external.webhook && receiver ? { secret: external.webhook.secret, receiverUrl: receiver.controlUrl } : null,
        runId,
        recordFile,
        tableFile,
        notes: external.notes,
        maxRequestsPerSecond: external.maxRequestsPerSecond,
      };
    }
  } catch (error) {
    await mock?.stop();
    await receiver?.close();
    // Kept when the error points into it (the log of a mock that failed to start), so that the path it names exists.
    if (!(error instanceof Error && error.message.includes(runDir))) rmSync(runDir, { recursive: true, force: true });
    throw error;
  }

  project.provide('contractTarget', target);

  return async () => {
    if (existsSync(tableFile)) process.stdout.write(`\n${readFileSync(tableFile, 'utf8')}\n`);
    const died = mock?.exitedEarly();
    if (died) process.stderr.write(`\n${died}\n`);
    await mock?.stop();
    await receiver?.close();
    if (mock && !died) keepRunTraffic(trafficFile);
    if (!died) rmSync(runDir, { recursive: true, force: true });
  };
}
