import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../../mock/webhooks/dispatcher.ts';
import { userAgent } from '../../../mock/webhooks/signing.ts';
import { captureLogger, companyId, harness, newSecret, roomyTimeoutMs, submittedEvent, testStore } from './support/fixtures.ts';
import { startReceiver } from './support/receiver.ts';

const resources = harness();
afterEach(() => resources.closeAll());

describe('webhook signing', () => {
  it('sends each event as its exact JSON, signed per Standard Webhooks', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    );
    const event = submittedEvent(companyId('a'));

    dispatcher.enqueue(event, companyId('a'));
    await dispatcher.idle();

    const [request] = receiver.requests;
    expect(receiver.requests).toHaveLength(1);
    expect(request?.verified).toBe(true);
    expect(request?.body).toBe(JSON.stringify(event));
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': userAgent,
      'webhook-id': event.id,
    });
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Number(request?.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
  });

  it('keeps the id and the body on a retry and signs it again with that attempt\'s timestamp', async () => {
    const secret = newSecret();
    const receiver = resources.track(
      await startReceiver(secret, (request) => ({ status: request.index < 2 ? 503 : 200 })),
    );
    // Seven seconds per reading, so each attempt lands in a different Unix second yet within the 5-minute tolerance.
    let tick = 0;
    const start = Date.now() - 60_000;
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(),
        endpointUrl: receiver.url,
        secret,
        retryDelaysMs: [5, 5],
        attemptTimeoutMs: roomyTimeoutMs,
        logger: captureLogger(),
        now: () => new Date(start + (tick += 1) * 7_000),
      }),
    );
    const event = submittedEvent(companyId('a'));

    dispatcher.enqueue(event, companyId('a'));
    await dispatcher.idle();

    expect(receiver.requests.map((request) => request.verified)).toEqual([true, true, true]);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(new Set(receiver.requests.map((request) => request.body))).toEqual(new Set([JSON.stringify(event)]));
    const timestamps = receiver.requests.map((request) => Number(request.headers['webhook-timestamp']));
    expect(timestamps[0]).toBeLessThan(timestamps[1] ?? 0);
    expect(timestamps[1]).toBeLessThan(timestamps[2] ?? 0);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-signature'])).size).toBe(3);
  });

  it('refuses a secret that is not base64 when created, not on each delivery', () => {
    expect(() =>
      createWebhookDispatcher({ store: testStore(), secret: 'whsec_***', retryDelaysMs: [], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    ).toThrow();
  });
});
