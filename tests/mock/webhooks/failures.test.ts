/**
 * What counts as a failed webhook attempt, with an event made by a formation step: error statuses, timeouts,
 * redirects (never followed), refused connections and endpoint URLs that cannot work. Each is journaled and retried
 * on the schedule, logged at the right level, and none of them holds up or fails the formation that made the event.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogger, newSecret, openResources, roomyTimeoutMs } from './support/fixtures.ts';
import { formationHarness } from './support/formation-harness.ts';
import { startReceiver, type Reply } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

// Spare retries so that, under load, a slow second answer to a short timeout does not disable the endpoint.
const retryDelaysMs = [5, 5, 5];

/** One company's submission, delivered to a receiver that answers its first request with `firstReply`. */
async function deliverOnceThrough(firstReply: Reply, attemptTimeoutMs = roomyTimeoutMs) {
  const secret = newSecret();
  const receiver = resources.track(
    await startReceiver(secret, (request) => (request.path === '/webhooks' && request.index === 0 ? firstReply : { status: 200 })),
  );
  const logger = captureLogger();
  const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, retryDelaysMs, attemptTimeoutMs, logger }));
  const company = await h.newCompany();
  await h.simulate(company, 'NEXT');
  await h.dispatcher.idle();
  const [event] = await h.eventsOf(company);
  return { receiver, h, logger, eventId: event?.id };
}

/** A harness whose endpoint cannot be reached as configured; the formation must go on all the same. */
async function submitTo(endpointUrl: string) {
  const h = resources.track(formationHarness({ endpointUrl, retryDelaysMs: [1] }));
  const company = await h.simulate(await h.newCompany(), 'NEXT');
  await h.dispatcher.idle();
  return { h, company };
}

/** A local port nothing listens on: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhook delivery failures', () => {
  it.each([400, 404, 410, 500, 503])('retries after an HTTP %i', async (status) => {
    const { receiver, h, eventId } = await deliverOnceThrough({ status });

    expect(receiver.accepted().map((accepted) => accepted.id)).toEqual([eventId]);
    expect((await h.dispatcher.journal()).map(({ attempt, status, outcome }) => ({ attempt, status, outcome }))).toEqual([
      { attempt: 1, status, outcome: 'failed' },
      { attempt: 2, status: 200, outcome: 'delivered' },
    ]);
  });

  it('counts a timeout as a failure and retries', async () => {
    const { receiver, h, eventId } = await deliverOnceThrough('hang', 200);

    expect(receiver.accepted().map((accepted) => accepted.id)).toEqual([eventId]);
    const journal = await h.dispatcher.journal();
    expect(journal[0]).toMatchObject({ attempt: 1, outcome: 'failed', error: 'timeout: no answer within 200 ms' });
    expect(journal[0]?.status).toBeUndefined();
    // The attempt did wait for its timeout (a lower bound only: a loaded machine may take longer).
    expect(journal[0]?.durationMs).toBeGreaterThanOrEqual(150);
    expect(journal.at(-1)).toMatchObject({ outcome: 'delivered' });
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const { receiver, h } = await deliverOnceThrough({ status: 302, headers: { location: '/elsewhere' } });

    expect(receiver.requests.map((request) => request.path)).toEqual(['/webhooks', '/webhooks']);
    expect((await h.dispatcher.journal())[0]).toMatchObject({ status: 302, outcome: 'failed', error: expect.stringMatching(/redirect/) });
  });

  it('logs a failure as a warning with the next retry delay and a success at debug level', async () => {
    const { logger } = await deliverOnceThrough({ status: 500 });

    expect(logger.lines.map(({ level }) => level)).toEqual(['warn', 'debug']);
    expect(logger.lines[0]?.obj).toMatchObject({ status: 500, error: 'HTTP 500', nextRetryInMs: 5, attempt: 1 });
  });

  it('survives a refused connection, journaling the network error', async () => {
    const { h, company } = await submitTo(`http://127.0.0.1:${await closedPort()}/webhooks`);

    expect(company.status).toBe('SUBMITTED');
    expect((await h.dispatcher.journal()).map(({ outcome }) => outcome)).toEqual(['failed', 'disabled']);
    expect((await h.dispatcher.journal())[0]?.error).toMatch(/ECONNREFUSED/);
  });

  it.each(['not a url', 'ftp://127.0.0.1/webhooks', 'http://'])('survives the endpoint URL %j', async (endpointUrl) => {
    const { h, company } = await submitTo(endpointUrl);

    // The formation step is taken whatever the endpoint: only the delivery fails, journaled, then disables it.
    expect(company.status).toBe('SUBMITTED');
    expect(await h.dispatcher.isDisabled()).toBe(true);
    expect((await h.dispatcher.journal()).every((entry) => typeof entry.error === 'string')).toBe(true);
    expect(h.formationLog).toEqual([]);
  });
});
