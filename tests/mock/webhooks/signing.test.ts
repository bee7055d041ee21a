/**
 * How a webhook goes on the wire, for an event made by a formation step: the exact bytes the outbox stored, signed
 * per Standard Webhooks (verified by the receiver as a partner would); a retry sends the same id and bytes, signed
 * again with its own timestamp; a secret that cannot sign is refused up front.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userAgent } from '../../../mock/webhooks/signing.ts';
import { webhookSchemaName } from '../support/http-fixtures.ts';
import { contractValidator, newSecret, openResources } from './support/fixtures.ts';
import { formationHarness, type HarnessOptions } from './support/formation-harness.ts';
import { startReceiver, type Policy } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

/** One company's submission delivered to a receiver answering as `policy` says; the event as the outbox keeps it. */
async function submission(policy: Policy, options: HarnessOptions = {}) {
  const secret = newSecret();
  const receiver = resources.track(await startReceiver(secret, policy));
  const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, ...options }));
  const company = await h.newCompany();
  await h.simulate(company, 'NEXT');
  await h.dispatcher.idle();
  const [stored] = await h.eventsOf(company);
  if (!stored) throw new Error('the formation step stored no event');
  return { receiver, stored };
}

describe('webhook signing', () => {
  it('sends each event as its exact JSON, signed per Standard Webhooks', async () => {
    const { receiver, stored } = await submission(() => ({ status: 200 }));

    const [request] = receiver.requests;
    expect(receiver.requests).toHaveLength(1);
    expect(request?.verified).toBe(true);
    // The bytes stored with the step, compact JSON of an event of the contract.
    expect(request?.body).toBe(stored.body);
    expect(request?.body).toBe(JSON.stringify(request?.event));
    const validate = await contractValidator(webhookSchemaName(stored.type));
    expect(validate(request?.event), JSON.stringify(validate.errors)).toBe(true);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': userAgent,
      'webhook-id': stored.id,
    });
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Number(request?.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1);
  });

  it("keeps the id and the body on a retry and signs it again with that attempt's timestamp", async () => {
    // Seven seconds per reading, so each attempt lands in a different Unix second yet within the 5-minute tolerance.
    let tick = 0;
    const start = Date.now() - 60_000;
    const { receiver, stored } = await submission((request) => ({ status: request.index < 2 ? 503 : 200 }), {
      retryDelaysMs: [5, 5],
      now: () => new Date(start + (tick += 1) * 7_000),
    });

    expect(receiver.requests.map((request) => request.verified)).toEqual([true, true, true]);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([stored.id]));
    expect(new Set(receiver.requests.map((request) => request.body))).toEqual(new Set([stored.body]));
    const timestamps = receiver.requests.map((request) => Number(request.headers['webhook-timestamp']));
    expect(timestamps[0]).toBeLessThan(timestamps[1] ?? 0);
    expect(timestamps[1]).toBeLessThan(timestamps[2] ?? 0);
    expect(new Set(receiver.requests.map((request) => request.headers['webhook-signature'])).size).toBe(3);
  });

  it('refuses a secret that is not base64 when created, not on each delivery', () => {
    expect(() => formationHarness({ secret: 'whsec_***' })).toThrow();
  });
});
