import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../../mock/webhooks/dispatcher.ts';
import { captureLogger, companyId, harness, newSecret, roomyTimeoutMs, submittedEvent, testStore } from './support/fixtures.ts';
import { startReceiver, type Reply } from './support/receiver.ts';

const resources = harness();
afterEach(() => resources.closeAll());

const company = companyId('a');
// Spare retries so that, under load, a slow second answer to a short timeout does not disable the endpoint.
const retryDelaysMs = [5, 5, 5];

async function deliverOnceThrough(firstReply: Reply, attemptTimeoutMs = roomyTimeoutMs) {
  const secret = newSecret();
  const receiver = resources.track(
    await startReceiver(secret, (request) => (request.path === '/webhooks' && request.index === 0 ? firstReply : { status: 200 })),
  );
  const logger = captureLogger();
  const dispatcher = resources.track(
    createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs, attemptTimeoutMs, logger }),
  );
  const event = submittedEvent(company);
  dispatcher.enqueue(event, company);
  await dispatcher.idle();
  return { receiver, dispatcher, logger, event };
}

describe('webhook delivery failures', () => {
  it.each([400, 404, 410, 500, 503])('retries after an HTTP %i', async (status) => {
    const { receiver, dispatcher, event } = await deliverOnceThrough({ status });

    expect(receiver.accepted().map((accepted) => accepted.id)).toEqual([event.id]);
    expect((await dispatcher.journal()).map(({ attempt, status, outcome }) => ({ attempt, status, outcome }))).toEqual([
      { attempt: 1, status, outcome: 'failed' },
      { attempt: 2, status: 200, outcome: 'delivered' },
    ]);
  });

  it('counts a timeout as a failure and retries', async () => {
    const { receiver, dispatcher, event } = await deliverOnceThrough('hang', 200);

    expect(receiver.accepted().map((accepted) => accepted.id)).toEqual([event.id]);
    const journal = (await dispatcher.journal());
    expect(journal[0]).toMatchObject({ attempt: 1, outcome: 'failed', error: 'timeout: no answer within 200 ms' });
    expect(journal[0]?.status).toBeUndefined();
    expect(journal[0]?.durationMs).toBeGreaterThanOrEqual(150);
    expect(journal.at(-1)).toMatchObject({ outcome: 'delivered' });
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const { receiver, dispatcher } = await deliverOnceThrough({ status: 302, headers: { location: '/elsewhere' } });

    expect(receiver.requests.map((request) => request.path)).toEqual(['/webhooks', '/webhooks']);
    expect((await dispatcher.journal())[0]).toMatchObject({ status: 302, outcome: 'failed', error: expect.stringMatching(/redirect/) });
  });

  it('logs a failure as a warning with the next retry delay and a success at debug level', async () => {
    const { logger } = await deliverOnceThrough({ status: 500 });

    expect(logger.lines.map(({ level }) => level)).toEqual(['warn', 'debug']);
    expect(logger.lines[0]?.obj).toMatchObject({ status: 500, error: 'HTTP 500', nextRetryInMs: 5, attempt: 1 });
  });

  it('survives a refused connection, journaling the network error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(),
        endpointUrl: `http://127.0.0.1:${port}/webhooks`,
        secret: newSecret(),
        retryDelaysMs: [1],
        attemptTimeoutMs: roomyTimeoutMs,
        logger: captureLogger(),
      }),
    );

    dispatcher.enqueue(submittedEvent(company), company);
    await dispatcher.idle();

    expect((await dispatcher.journal()).map(({ outcome }) => outcome)).toEqual(['failed', 'disabled']);
    expect((await dispatcher.journal())[0]?.error).toMatch(/ECONNREFUSED/);
  });

  it.each(['not a url', 'ftp://127.0.0.1/webhooks', 'http://'])('survives the endpoint URL %j', async (endpointUrl) => {
    const logger = captureLogger();
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl, secret: newSecret(), retryDelaysMs: [1], attemptTimeoutMs: roomyTimeoutMs, logger }),
    );

    expect(() => dispatcher.enqueue(submittedEvent(company), company)).not.toThrow();
    await dispatcher.idle();

    expect((await dispatcher.isDisabled())).toBe(true);
    expect((await dispatcher.journal()).every((entry) => typeof entry.error === 'string')).toBe(true);
  });
});
