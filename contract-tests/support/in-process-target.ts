/**
 * The mock in process as the suite's target (`npm run test:contract:in-process`, `CONTRACT_TARGET=in-process`): no
 * process and no port. Each test file's worker runs the mock's package entry for Mock Service Worker
 * (mock/package/msw.ts) with the suite's options, behind `setupServer`: every request the suite sends to the base URL,
 * through the same validating fetch as against any target, is answered by the mock's pipeline in that worker, and
 * the mock's webhooks go to the suite's receiver, a fetch handler here too. A request nothing handles is an error:
 * nothing leaves the process.
 *
 * State lives as long as a file's worker: each file starts on an empty mock, as each works with data it makes.
 */
import { newSandboxKey } from './fresh-ids.ts';
import type { TargetInfo } from './provided.ts';
import { mockWebhookSecret } from './suite-mock-options.ts';

/** Where the suite's receiver answers in process: a name that never resolves (RFC 6761), since nothing goes out. */
const receiverUrl = 'http://receiver.in-process.invalid';

export function inProcessTargetAsked(env: NodeJS.ProcessEnv): boolean {
  return env.CONTRACT_TARGET === 'in-process';
}

/** The target, for globalSetup to hand to the workers. */
export function inProcessTarget(run: Pick<TargetInfo, 'runId' | 'recordFile' | 'tableFile'>): TargetInfo {
  return {
    kind: 'in-process',
    // Where the app calls: the contract's sandbox, as a frontend built on it would (intercepted, never reached).
    baseUrl: 'https://sandbox.api.partner-formation.example',
    description: 'the mock in process, behind Mock Service Worker (setupServer), in each test file',
    apiKey: newSandboxKey(),
    apiKey2: newSandboxKey(),
    mockAdmin: true,
    webhook: { secret: mockWebhookSecret, receiverUrl },
    ...run,
    notes: [],
    maxRequestsPerSecond: null,
  };
}

/** In a test file's worker: the mock and the receiver behind Mock Service Worker, until the file is done. */
export async function serveInProcess(target: TargetInfo, hooks: { afterAll(run: () => Promise<void>): void }): Promise<void> {
  const [{ setupServer }, { http }, { createMock }, { createWebhookReceiver }, { suiteMockOptions }] = await Promise.all([
    import('msw/node'),
    import('msw'),
    import('../../mock/package/msw.ts'),
    import('./webhook-receiver.ts'),
    import('./suite-mock-options.ts'),
  ]);
  const mock = await createMock({ baseUrl: target.baseUrl, options: suiteMockOptions });
  const receive = createWebhookReceiver();
  mock.onWebhook((delivery) => receive(delivery));
  const server = setupServer(...mock.handlers, http.all(`${receiverUrl}/*`, ({ request }) => receive(request)));
  server.listen({ onUnhandledFrame: 'error' });
  hooks.afterAll(async () => {
    server.close();
    await mock.close();
  });
}
