/**
 * A seed stopped half-way by a `kill -9` (`POST /_mock/seed`, applied through the API one request at a time) is
 * finished by seeding again: a company the stopped seed created but did not take to its status yet is taken there,
 * not skipped because its name is known.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../support/http-fixtures.ts';
import { processFixture, type ProcessFixture, type RunningProcess } from './support/mock-processes.ts';

const seed = JSON.parse(readFileSync(fileURLToPath(new URL('../../../examples/seed.json', import.meta.url)), 'utf8'));
const seedKey: string = seed.apiKey;
/** Each company of the seed by its name, with the status the seed asks for. */
const wanted: Record<string, string> = Object.fromEntries(
  (seed.customers as { companies?: { formation: { nameOptions: string[] }; status?: string }[] }[]).flatMap((entry) => (entry.companies ?? []).map((company) => [company.formation.nameOptions[0], company.status ?? 'PENDING'])),
);

let fixture: ProcessFixture;
beforeAll(async () => {
  fixture = await processFixture('seed-crash');
}, 120_000);
afterAll(async () => {
  await fixture?.cleanUp();
});

const companiesOf = async (mock: RunningProcess) => (await mock.call('/v1/partner/companies?limit=100', { key: seedKey })).json.payload.data as { name: string; status: string; ein: string | null }[];
const statuses = (companies: { name: string; status: string }[]) => Object.fromEntries(companies.map((company) => [company.name, company.status]));

it('finishes a seed killed half-way when seeded again: every company at the status the seed names', async () => {
  // The manual timeline: a company stays where the seed (or the crash) left it.
  const args = ['--store', `sqlite:${join(fixture.folder, 'state.db')}`, '--formation-timeline', 'manual', '--rate-limit', '100000'];
  const first = await fixture.start(args);
  // The seed is held at its first simulation, after the first company was created: the crash lands between the two.
  const armed = await first.call('/_mock/faults', { body: { operationId: 'simulateCompanyFormation', delayMs: 60_000, count: 1 }, key: seedKey });
  expect(armed.status, JSON.stringify(armed.json)).toBe(201);
  const seeding = first.call('/_mock/seed', { body: seed, key: null }).catch(() => undefined);
  await eventually(async () => (await companiesOf(first)).length === 1, 10_000, 'the seed to create its first company');
  await first.kill9();
  await seeding;

  const restarted = await fixture.start(args);
  expect(statuses(await companiesOf(restarted))).toEqual({ 'Analytical Engines LLC': 'PENDING' });
  const again = await restarted.call('/_mock/seed', { body: seed, key: null });
  expect(again.status, JSON.stringify(again.json)).toBe(200);
  const companies = await companiesOf(restarted);
  expect(statuses(companies)).toEqual(wanted);
  expect(again.json.payload).toEqual({ partners: 1, customers: { created: 1, existing: 1 }, companies: { created: 3, advanced: 1, skipped: 0 } });
  expect(companies.find((company) => company.name === 'Analytical Engines LLC')?.ein).toMatch(/^\d{2}-\d{7}$/);

  // Converged: seeding once more changes nothing.
  const third = await restarted.call('/_mock/seed', { body: seed, key: null });
  expect(third.json.payload).toEqual({ partners: 1, customers: { created: 0, existing: 2 }, companies: { created: 0, advanced: 0, skipped: 4 } });
  expect(statuses(await companiesOf(restarted))).toEqual(wanted);
}, 120_000);
