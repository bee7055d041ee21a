/**
 * A recording (`--record`) outlives its process: written while the proxy runs, whole after a `kill -9` (each
 * version is renamed over the last, never written in place), and loaded at the start of another mock with
 * `--seed FILE --seed-key KEY`, since it holds no key of its own.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { customerBody, eventually, newIdempotencyKey } from '../support/http-fixtures.ts';
import { sandboxKey } from '../support/mock-harness.ts';
import { processFixture, type ProcessFixture } from './support/mock-processes.ts';

let fixture: ProcessFixture;
beforeAll(async () => {
  fixture = await processFixture('recording');
}, 120_000);
afterAll(async () => {
  await fixture?.cleanUp();
});

const quiet = ['--store', 'memory', '--rate-limit', '100000', '--formation-timeline', 'manual'];

it('keeps a whole recording through a kill -9, which seeds another mock with --seed-key', async () => {
  const sandbox = await fixture.start(quiet);
  const path = join(fixture.folder, 'recording.json');
  const proxy = await fixture.start([...quiet, '--upstream', sandbox.url, '--record', path]);
  const emails: string[] = [];
  for (let n = 0; n < 20; n += 1) {
    const body = customerBody();
    emails.push(body.email);
    expect((await proxy.call('/v1/partner/customers', { body, idempotencyKey: newIdempotencyKey() })).status).toBe(200);
  }
  // Written while it runs, a moment after the last change.
  await eventually(async () => JSON.parse(await readFile(path, 'utf8')).recorded?.[0]?.customers.length === 20, 10_000, 'the recording to hold 20 customers');
  await proxy.kill9();
  const document = JSON.parse(await readFile(path, 'utf8'));
  expect(document.recorded[0].customers.map((entry: { customer: { email: string } }) => entry.customer.email)).toEqual(emails);

  const seeded = await fixture.start([...quiet, '--seed', path, '--seed-key', sandboxKey]);
  const listed = (await seeded.call('/v1/partner/customers?limit=100')).json.payload.data as { email: string }[];
  expect(listed.map((customer) => customer.email).sort()).toEqual([...emails].sort());
}, 120_000);
