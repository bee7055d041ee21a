/**
 * Delivery order and concurrency, with events made as in production by companies' formations: each company's
 * events arrive in the order its formation stored them, one at a time, while companies are delivered side by side,
 * and the dispatcher never has more than `maxConcurrency` attempts going at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newSecret, openResources, sleep, until } from './support/fixtures.ts';
import { formationHarness, llcFormationEvents, type CompanyRef, type FormationHarness } from './support/formation-harness.ts';
import { gatedFetch } from './support/gated-fetch.ts';
import { startReceiver, type ReceivedEvent, type Receiver } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

const companyOf = (event: ReceivedEvent) => event.data['serviceCompanyId'];

/** The ids a company's events were accepted in, keeping only the first acceptance of each id (the partner's dedupe). */
function acceptedIdsOf(receiver: Receiver, company: CompanyRef): string[] {
  return [...new Set(receiver.accepted().filter((event) => companyOf(event) === company.id).map((event) => event.id))];
}

/** What each company's formation stored, in order: what its deliveries must follow. */
async function storedIdsOf(h: FormationHarness, company: CompanyRef): Promise<string[]> {
  return (await h.eventsOf(company)).map((event) => event.id);
}

async function newCompanies(h: FormationHarness, count: number): Promise<CompanyRef[]> {
  const companies: CompanyRef[] = [];
  for (let n = 0; n < count; n += 1) companies.push(await h.newCompany());
  return companies;
}

/** Where a company's requests came in the receiver's arrival order. */
function arrivals(receiver: Receiver, company: CompanyRef): number[] {
  return receiver.requests.filter((request) => request.event && companyOf(request.event) === company.id).map((request) => request.index);
}

describe('webhook ordering', () => {
  it('delivers each company in order, one at a time, while companies run concurrently', async () => {
    const secret = newSecret();
    // Random answer times shuffle when attempts end; the order must not depend on them.
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200, delayMs: Math.floor(Math.random() * 15) })));
    // a's attempts are held before the wire until b is done: b can only finish if a's pending head does not block it.
    const gate = gatedFetch((event) => companyOf(event) === a.id);
    const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, retryDelaysMs: [5], fetch: gate.fetch }));
    const [a, b] = (await newCompanies(h, 2)) as [CompanyRef, CompanyRef];

    await h.simulate(a, 'COMPLETED');
    await until(() => gate.held === 1);
    await h.simulate(b, 'COMPLETED');
    await until(() => acceptedIdsOf(receiver, b).length === llcFormationEvents.length);
    // Six of a's events are stored, yet only its head was attempted: one at a time per company.
    expect(gate.held).toBe(1);
    gate.open();
    await h.dispatcher.idle();

    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    for (const company of [a, b]) {
      expect((await h.eventsOf(company)).map((event) => event.type)).toEqual(llcFormationEvents);
      expect(acceptedIdsOf(receiver, company)).toEqual(await storedIdsOf(h, company));
    }
    expect(Math.max(...arrivals(receiver, b))).toBeLessThan(Math.min(...arrivals(receiver, a)));
    expect(receiver.maxConcurrentPerKey).toBe(1);
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
    const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, retryDelaysMs: [2, 2, 2] }));
    const companies = await newCompanies(h, 3);

    // Side by side, as partners' formations run: their events are stored interleaved.
    await Promise.all(companies.map((company) => h.simulate(company, 'COMPLETED')));
    await h.dispatcher.idle();

    expect(await h.dispatcher.isDisabled()).toBe(false);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    expect(receiver.requests).toHaveLength(2 * companies.length * llcFormationEvents.length);
    const acceptedIds = receiver.accepted().map((event) => event.id);
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);
    for (const company of companies) expect(acceptedIdsOf(receiver, company)).toEqual(await storedIdsOf(h, company));
    expect((await h.dispatcher.deliveries()).every((delivery) => delivery.state === 'delivered')).toBe(true);
  });

  it('never has more attempts in flight than maxConcurrency', async () => {
    const maxConcurrency = 3;
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 204 })));
    // Attempts are held until the dispatcher has maxConcurrency of them going: the cap is reached, every round.
    let rounds = false;
    const gate = gatedFetch(
      () => true,
      (held) => {
        if (rounds && held.held === maxConcurrency) held.release();
      },
    );
    const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, maxConcurrency, fetch: gate.fetch }));
    // One event per company: every lane has work to claim, so each round can fill up (9 events, 3 rounds).
    const companies = await newCompanies(h, 3 * maxConcurrency);

    for (const company of companies) await h.simulate(company, 'NEXT');
    await until(() => gate.held >= maxConcurrency);
    // Every event is stored and due, and nothing ends while held: room for a fourth attempt if the cap did not hold.
    await sleep(50);
    expect(gate.held).toBe(maxConcurrency);
    rounds = true;
    gate.release();
    await h.dispatcher.idle();

    expect(receiver.accepted()).toHaveLength(companies.length);
    expect(gate.maxInFlight).toBe(maxConcurrency);
    expect(receiver.maxConcurrent).toBeLessThanOrEqual(maxConcurrency);
  });
});
