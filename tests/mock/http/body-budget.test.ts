/**
 * The request body bytes the mock holds at once are bounded across connections: clients that announce large
 * bodies and stall hold the budget, a new body past it is answered 503 with Retry-After at once (never read), and
 * the budget comes back when those clients leave.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeCheckingJournal } from '../support/journal-check.ts';
import { customerBody, newIdempotencyKey } from '../support/http-fixtures.ts';
import { createBodyBudget, type BodyBudget } from '../../../mock/pipeline/body-budget.ts';
import { sandboxKey, startTestMock, type TestMock } from '../support/mock-harness.ts';

const budget = 2 * 1024 * 1024;
let mock: TestMock;
const stalled: Socket[] = [];
/** Every request here names its id: a 503 is what this file provokes, and the journal check is told so. */
const sentIds: string[] = [];
const nextId = () => {
  sentIds.push(`budget-${sentIds.length + 1}`);
  return sentIds.at(-1) as string;
};

// A mock per case: a case's stalled clients leave the budget as the server sees them close, which another case
// must not have to wait for.
/** The mock's budget, watched: a case waits until its stalled clients' bytes are held before it sends its own. */
let held: BodyBudget;

beforeEach(async () => {
  held = createBodyBudget(budget);
  mock = await startTestMock({ bodyMemoryBytes: budget, rateLimitPerSecond: 10_000 }, { bodyBudget: held });
});

afterEach(async () => {
  for (const socket of stalled.splice(0)) socket.destroy();
  await closeCheckingJournal(mock, { expected5xx: sentIds });
});

/**
 * A create (or a seed) that announces `length` bytes (or none: chunked), sends `sent` of them, and stalls; resolves
 * once they are out.
 */
function stallingUpload(length: number | 'chunked', sent: number, path = '/v1/partner/customers'): Promise<Socket> {
  const { port, host } = new URL(mock.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${sandboxKey}\r\nContent-Type: application/json\r\nIdempotency-Key: ${newIdempotencyKey()}\r\nX-Request-Id: ${nextId()}\r\n${framing}\r\n\r\n`);
      const body = Buffer.alloc(sent, 0x20);
      socket.write(length === 'chunked' ? Buffer.concat([Buffer.from(`${sent.toString(16)}\r\n`), body, Buffer.from('\r\n')]) : body, () => resolve(socket));
    });
    socket.on('error', reject);
    stalled.push(socket);
  });
}

/** A create of about 200 KB: what does not fit beside two stalled uploads of 1 MB in a budget of 2 MiB. */
const largeCreate = () => mock.call('/v1/partner/customers', { body: { ...customerBody(), lastName: 'x'.repeat(200_000) }, idempotencyKey: newIdempotencyKey(), headers: { 'x-request-id': nextId() } });

describe('the body budget', () => {
  it('charges bytes as they arrive: clients that announce large bodies and send nothing starve no one', async () => {
    // Announced, they would fill the budget to its last byte (2 × 1 MiB).
    const announcers = await Promise.all(Array.from({ length: 8 }, () => stallingUpload(1024 * 1024, 0)));
    // Time for the server to route them all to their body (nothing to wait on: they send nothing more).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBeLessThan(300);
    for (const socket of announcers) socket.destroy();
  });

  it('answers 503 with Retry-After for a body past what stalled uploads hold, and takes it once they leave', async () => {
    const holders = [await stallingUpload(1_000_000, 990_000), await stallingUpload(1_000_000, 990_000)];
    // Once the server has read what they sent, a body that does not fit beside them is refused.
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(1_980_000);
    const refused = await largeCreate();
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe('E_SERVICE_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toBe('1');
    // A small body still fits beside them: the budget is of bytes, not of requests.
    expect((await mock.call('/v1/partner/customers', { body: customerBody(), idempotencyKey: newIdempotencyKey() })).status).toBeLessThan(300);

    for (const socket of holders) socket.destroy();
    // Given back as the server sees them close: a retry then fits (a 400 here: the name is over its limit).
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(0);
    expect((await largeCreate()).status).toBe(400);
  });

  it('counts the admin routes\' bodies too: a seed past what stalled seeds hold is answered 503, as the admin contract documents', async () => {
    const holders = [await stallingUpload(1_000_000, 990_000, '/_mock/seed'), await stallingUpload(1_000_000, 990_000, '/_mock/seed')];
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(1_980_000);
    const seed = await fetch(`${mock.url}/_mock/seed`, { method: 'POST', headers: { authorization: sandboxKey, 'content-type': 'application/json', 'x-request-id': nextId() }, body: JSON.stringify({ customers: [], padding: 'x'.repeat(700_000) }) });
    expect(seed.status).toBe(503);
    expect(((await seed.json()) as { error: { code: string } }).error.code).toBe('E_SERVICE_UNAVAILABLE');
    expect(seed.headers.get('retry-after')).toBe('1');
    for (const socket of holders) socket.destroy();
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(0);
    expect((await largeCreate()).status).toBe(400);
  });

  it('counts a chunked body as it comes, refusing it at the chunk that does not fit', async () => {
    const holders = [await stallingUpload(1_000_000, 999_999), await stallingUpload(1_000_000, 999_999)];
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(1_999_998);
    const chunked = await stallingUpload('chunked', 10_000);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      chunked.on('data', (data: Buffer) => {
        text += data.toString();
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      chunked.write(`${(100_000).toString(16)}\r\n${' '.repeat(100_000)}\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('retry-after: 1');
    for (const socket of holders) socket.destroy();
    await expect.poll(() => held.held, { timeout: 5_000 }).toBe(0);
    expect((await largeCreate()).status).toBe(400);
  });
});
