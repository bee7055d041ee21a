/**
 * A restart keeps every promise: the mock is killed outright (`kill -9`, no shutdown) with customers, a company in
 * the middle of its formation, a stored idempotency record and undelivered events (the receiver is down), and
 * started again on the same SQLite file. Everything is still there, the old key replays, the formation completes,
 * and once the receiver is up every event arrives, verified, in order, with the id it had before the restart.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerBody, eventually, llcBody, newIdempotencyKey, sleep } from '../support/http-fixtures.ts';
import { newSecret } from '../webhooks/support/fixtures.ts';
import { startReceiver, type Receiver } from '../webhooks/support/receiver.ts';
import { processFixture, type ProcessFixture, type RunningProcess } from './support/mock-processes.ts';
import { lifecycleOf } from './support/lifecycle.ts';

let fixture: ProcessFixture;
let receiver: Receiver;
let receiverUp = false;
const secret = newSecret();

beforeAll(async () => {
  fixture = await processFixture('restart');
  receiver = await startReceiver(secret, () => (receiverUp ? { status: 200 } : { status: 503 }));
});
afterAll(async () => {
  await fixture.cleanUp();
  await receiver.close();
});

describe('a mock killed with kill -9 and started again on the same SQLite store', () => {
  it('keeps its data, replays old keys, completes formations and delivers every event in order', async () => {
    const args = [
      '--store', `sqlite:${join(fixture.folder, 'state.db')}`,
      '--formation-timeline', 'auto', '--formation-step-delay', '150ms',
      '--webhook-url', receiver.url, '--webhook-secret', secret, '--webhook-timeout', '1s',
      '--webhook-retry-delays', Array.from({ length: 60 }, () => '200ms').join(','),
      '--rate-limit', '10000',
    ];
    const first = await fixture.start(args);
    const customers = await Promise.all([1, 2].map(async () => (await first.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).json.payload));
    const key = randomUUID();
    const body = customerBody();
    const original = await first.call('/v1/partner/customers', { body, idempotencyKey: key });
    expect(original.status).toBe(200);
    const accepted = await first.call('/v1/partner/companies', { body: llcBody(customers[0].serviceCustomerId), idempotencyKey: newIdempotencyKey() });
    expect(accepted.status).toBe(202);
    const companyId: string = accepted.json.payload.serviceCompanyId;
    await eventually(() => receiver.requests.length > 0, 10_000, 'a first delivery attempt (refused: the receiver is down)');
    const attemptedBefore = new Set(receiver.requests.map((request) => request.event?.id));
    expect((await first.call(`/v1/partner/companies/${companyId}`)).json.payload.status).not.toBe('PENDING');

    await first.kill9();
    // Down long enough for every remaining step of the formation to fall due.
    await sleep(1_200);
    const second = await fixture.start(args);

    for (const { created: _created, companies: _companies, ...customer } of customers) {
      expect((await second.call(`/v1/partner/customers/${customer.serviceCustomerId}`)).json.payload).toMatchObject(customer);
    }
    const replay = await second.call('/v1/partner/customers', { body, idempotencyKey: key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(original.json);

    receiverUp = true;
    const company = await eventually(async () => {
      const read = (await second.call(`/v1/partner/companies/${companyId}`)).json.payload;
      const documents = (await second.call(`/v1/partner/companies/${companyId}/documents`)).json.payload.data;
      return read.ein !== null && documents.length === 3 && read;
    }, 30_000, 'the formation completed with its EIN and documents');
    expect(company.status).toBe('COMPLETED');

    const events = await eventually(() => {
      const received = receiver.accepted().filter((event) => event.data['serviceCompanyId'] === companyId);
      return received.length >= 6 && received;
    }, 40_000, 'every event of the formation delivered');
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    expect(events.map((event) => event.type)).toEqual(lifecycleOf('LLC'));
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    // The events attempted before the kill arrived afterwards under the same ids.
    for (const id of attemptedBefore) expect(events.map((event) => event.id)).toContain(id);
  }, 120_000);
});
