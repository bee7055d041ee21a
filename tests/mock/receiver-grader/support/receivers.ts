/**
 * Webhook receivers as real HTTP servers, each wrong in one known way, for the grader to be graded on: the example
 * receiver (examples/webhook-receiver/, right in every case) with one part of it swapped for a faulty one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type WebhookEvent } from '../../../../client/index.ts';
import { loadContractSync } from '../../../../contract-model/document.ts';
import { Refusal, startWebhookReceiver, verifyWith, type Effects, type RunningReceiver, type Verify } from '../../../../examples/webhook-receiver/receiver.ts';
import { contractExampleEvents } from '../../../../mock/receiver-grader/battery-events.ts';

export type { RunningReceiver } from '../../../../examples/webhook-receiver/receiver.ts';

export const receiverSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export type Fault =
  /** None: the example receiver. */
  | 'none'
  /** Parses the body and trusts it, signature or not. */
  | 'skips-verification'
  /** Verifies, with a tolerance of an hour typed in rather than the contract's. */
  | 'fixed-tolerance'
  /** Refuses an event with a property its type's example lacks. */
  | 'rejects-unknown-fields'
  /** Compares webhook-signature with the one signature it expects, whole: two, during a rotation, never match. */
  | 'rejects-second-signature'
  /** Applies an event's effects every time it arrives. */
  | 'processes-repeats-again'
  /** Answers after `delayMs`. */
  | 'answers-slowly';

const exampleKeys = new Map([...contractExampleEvents(loadContractSync())].map(([type, event]) => [type as string, new Set(Object.keys(event.data))]));

const faultyVerify: Partial<Record<Fault, (secret: string, delayMs: number) => Verify>> = {
  'skips-verification': () => async (rawBody) => JSON.parse(Buffer.from(rawBody).toString('utf8')) as WebhookEvent,
  'fixed-tolerance': (secret) => (rawBody, headers) => verifyWebhook(rawBody, headers as Record<string, string>, secret, { toleranceSeconds: 3600 }),
  'rejects-unknown-fields': (secret) => async (rawBody, headers) => {
    const event = await verifyWith(secret)(rawBody, headers);
    const known = exampleKeys.get(event.type) ?? new Set();
    const unknown = [...Object.keys(event).filter((key) => !['id', 'type', 'timestamp', 'data'].includes(key)), ...Object.keys(event.data).filter((key) => !known.has(key))];
    if (unknown.length > 0) throw new Refusal(400, 'unknown_field', `Unknown properties: ${unknown.join(', ')}.`);
    return event;
  },
  'rejects-second-signature': (secret) => async (rawBody, headers) => {
    const body = Buffer.from(rawBody).toString('utf8');
    const expected = new Webhook(secret).sign(String(headers['webhook-id']), new Date(Number(headers['webhook-timestamp']) * 1000), body);
    if (headers['webhook-signature'] !== expected) throw new Refusal(401, 'signature_invalid', 'The signature does not match.');
    return verifyWith(secret)(rawBody, headers);
  },
  'answers-slowly': (secret, delayMs) => async (rawBody, headers) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return verifyWith(secret)(rawBody, headers);
  },
};

/** Effects that are applied as often as the event arrives: no deduplication. */
function everyTime(): Effects {
  const applied = new Map<string, number>();
  return { apply: (event) => void applied.set(event.id, (applied.get(event.id) ?? 0) + 1), processed: (eventId) => applied.get(eventId) ?? 0 };
}

export function startReceiver(fault: Fault, options: { secret?: string; delayMs?: number } = {}): Promise<RunningReceiver> {
  const secret = options.secret ?? receiverSecret;
  const verify = faultyVerify[fault]?.(secret, options.delayMs ?? 0);
  return startWebhookReceiver({ secret, ...(verify ? { verify } : {}), ...(fault === 'processes-repeats-again' ? { effects: everyTime() } : {}) });
}

/** A server that answers every request with `answer`, and counts what it was sent. */
export async function startServer(answer: (request: { method: string; url: string }) => { status: number; headers?: Record<string, string>; body?: string | (() => AsyncIterable<string>) }): Promise<{ url: string; requests: { method: string; url: string; at: number }[]; close(): Promise<void> }> {
  const requests: { method: string; url: string; at: number }[] = [];
  const server = createServer((request, response) => {
    const seen = { method: request.method ?? '', url: request.url ?? '' };
    requests.push({ ...seen, at: performance.now() });
    request.resume();
    request.on('end', () => {
      const { status, headers, body } = answer(seen);
      response.writeHead(status, headers);
      if (typeof body === 'function') {
        void (async () => {
          for await (const chunk of body()) if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
        })().catch(() => undefined);
      } else response.end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
