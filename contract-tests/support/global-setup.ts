/**
 * Resolves the target once for the whole run: the mock, built and started here as its own process with a
 * webhook receiver next to it, or the external target named by `CONTRACT_BASE_URL`. Hands the workers what they
 * need through `provide`, and afterwards prints the coverage table the last test file rendered, then stops
 * whatever it started.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildMock, startMockProcess, type MockProcess } from './mock-process.ts';
import type { TargetInfo } from './provided.ts';
import { readExternalTarget, TargetConfigError } from './target-env.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Fixed so that a failing run can be replayed by hand against a mock started with the same secret. */
export const mockWebhookSecret = 'whsec_Y29udHJhY3QtdGVzdHMtd2ViaG9vay1zZWNyZXQ=';

function newTestKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `dk_test_${[...randomBytes(32)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** Fails the run once, plainly, rather than every test with "fetch failed". Any answer at all will do. */
async function assertReachable(baseUrl: string): Promise<void> {
  try {
    await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    const failure = new TargetConfigError(`CONTRACT_BASE_URL ${baseUrl} cannot be reached: ${cause}.`);
    failure.stack = `${failure.name}: ${failure.message}`;
    throw failure;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let external;
  try {
    external = readExternalTarget(process.env);
  } catch (error) {
    if (error instanceof TargetConfigError) {
      // The message is the whole story; a stack trace would only hide it.
      error.stack = `${error.name}: ${error.message}`;
    }
    throw error;
  }

  const runDir = mkdtempSync(join(tmpdir(), 'contract-tests-'));
  const runId = randomUUID().replaceAll('-', '').slice(0, 12);
  const recordFile = join(runDir, 'records.jsonl');
  const tableFile = join(runDir, 'coverage.txt');
  writeFileSync(recordFile, '');

  let mock: MockProcess | undefined;
  let receiver: WebhookReceiver | undefined;
  let target: TargetInfo;
  try {
    if (external === undefined) {
      receiver = await startWebhookReceiver({ port: 0, host: '127.0.0.1' });
      await buildMock(projectRoot);
      mock = await startMockProcess({
        projectRoot,
        logDir: runDir,
        args: [
          '--port', '0',
          '--log-format', 'json',
          '--formation-timeline', 'manual',
          // The suite sends a few hundred requests a second; the published 25/s would turn them into 429s.
          '--rate-limit', '500000',
          '--webhook-url', `http://127.0.0.1:${receiver.port}/webhooks`,
          '--webhook-secret', mockWebhookSecret,
          '--webhook-retry-delays', '50ms,50ms,50ms',
          // Short enough for the expiry check to wait for it.
          '--download-url-ttl', '2s',
        ],
      });
      target = {
        kind: 'self-started-mock',
        description: `the mock, started by the suite at ${mock.url}`,
        baseUrl: mock.url,
        apiKey: newTestKey(),
        apiKey2: newTestKey(),
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
    rmSync(runDir, { recursive: true, force: true });
    throw error;
  }

  project.provide('contractTarget', target);

  return async () => {
    if (existsSync(tableFile)) process.stdout.write(`\n${readFileSync(tableFile, 'utf8')}\n`);
    const died = mock?.exitedEarly();
    if (died) process.stderr.write(`\n${died}\n`);
    await mock?.stop();
    await receiver?.close();
    if (!died) rmSync(runDir, { recursive: true, force: true });
  };
}
