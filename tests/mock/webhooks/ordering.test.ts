import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../../mock/webhooks/dispatcher.ts';
import type { WebhookEvent } from '../../../mock/webhooks/events.ts';
import { captureLogger, companyId, harness, newSecret, roomyTimeoutMs, submittedEvent, testStore } from './support/fixtures.ts';
import { startReceiver, type ReceivedEvent } from './support/receiver.ts';

const resources = harness();
afterEach(() => resources.closeAll());

const perCompany = 20;

/** The ids a company's events were accepted in, keeping only the first acceptance of each id (the partner's dedupe). */
function acceptedIdsOf(accepted: ReceivedEvent[], company: string): string[] {
  const ids = accepted.filter((event) => event.data['serviceCompanyId'] === company).map((event) => event.id);
  return [...new Set(ids)];
}

function enqueueInterleaved(enqueue: (event: WebhookEvent, key: string) => void, companies: string[]) {
  const sent = new Map(companies.map((company) => [company, [] as string[]]));
  for (let n = 0; n < perCompany; n += 1) {
    for (const company of companies) {
      const event = submittedEvent(company, n);
      sent.get(company)?.push(event.id);
      enqueue(event, company);
    }
  }
  return sent;
}

describe('webhook ordering', () => {
  it('delivers each company in order, one at a time, while companies run concurrently', async () => {
    const secret = newSecret();
    const receiver = resources.track(
      await startReceiver(secret, () => ({ status: 200, delayMs: Math.floor(Math.random() * 15) })),
    );
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [5], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    );
    const companies = [companyId('a'), companyId('b')];

    const sent = enqueueInterleaved((event, key) => dispatcher.enqueue(event, key), companies);
    await dispatcher.idle();

    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    for (const company of companies) expect(acceptedIdsOf(receiver.accepted(), company)).toEqual(sent.get(company));
    expect(receiver.maxConcurrentPerKey).toBe(1);
    expect(receiver.maxConcurrent).toBe(2);
  });

  it('delivers every event in order when the receiver fails every other attempt', async () => {
    const secret = newSecret();
    // Alternating per event, not per request: with companies interleaved, a global alternation could fail one
    // event on every attempt and disable the endpoint, which is another test.
    const attemptsById = new Map<string, number>();
    const receiver = resources.track(
      await startReceiver(secret, (request) => {
        const id = request.event?.id ?? '';
        const attempt = (attemptsById.get(id) ?? 0) + 1;
        attemptsById.set(id, attempt);
        return { status: attempt % 2 === 1 ? 500 : 200, delayMs: Math.floor(Math.random() * 5) };
      }),
    );
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(), endpointUrl: receiver.url, secret, retryDelaysMs: [2, 2, 2], attemptTimeoutMs: roomyTimeoutMs, logger: captureLogger() }),
    );
    const companies = [companyId('a'), companyId('b'), companyId('c')];

    const sent = enqueueInterleaved((event, key) => dispatcher.enqueue(event, key), companies);
    await dispatcher.idle();

    expect((await dispatcher.isDisabled())).toBe(false);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    expect(receiver.requests).toHaveLength(2 * companies.length * perCompany);
    const acceptedIds = receiver.accepted().map((event) => event.id);
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);
    for (const company of companies) expect(acceptedIdsOf(receiver.accepted(), company)).toEqual(sent.get(company));
    expect((await dispatcher.deliveries()).every((delivery) => delivery.state === 'delivered')).toBe(true);
  });

  it('never has more attempts in flight than maxConcurrency', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 204, delayMs: 10 })));
    const dispatcher = resources.track(
      createWebhookDispatcher({ store: testStore(),
        endpointUrl: receiver.url,
        secret,
        retryDelaysMs: [],
        attemptTimeoutMs: roomyTimeoutMs,
        logger: captureLogger(),
        maxConcurrency: 3,
      }),
    );

    for (let n = 0; n < 30; n += 1) dispatcher.enqueue(submittedEvent(companyId(`k${n % 10}`), n), companyId(`k${n % 10}`));
    await dispatcher.idle();

    expect(receiver.accepted()).toHaveLength(30);
    expect(receiver.maxConcurrent).toBe(3);
  });
});
