/**
 * The formation timeline and the webhook dispatcher on a store whose every read is a round trip (the optimistic
 * runner Redis uses, tests/support/remote-store.ts). A transaction body there runs again once what it missed is
 * fetched, so it must read the same keys on every run: one that took the time inside its body read a new range
 * at each run, a millisecond later, and never ended while a round trip took a millisecond or more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openRemoteStore } from '../../support/remote-store.ts';
import { newSecret, openResources, sleep, until } from './support/fixtures.ts';
import { formationHarness, llcFormationEvents } from './support/formation-harness.ts';
import { startReceiver } from './support/receiver.ts';

const resources = openResources();
afterEach(() => resources.closeAll());

describe('formation and delivery on a store 2 ms away', () => {
  it('take a formation to COMPLETED, deliver its events, then leave the store alone', async () => {
    const secret = newSecret();
    const receiver = resources.track(await startReceiver(secret, () => ({ status: 200 })));
    const store = openRemoteStore({ latencyMs: 2 });
    const h = resources.track(formationHarness({ endpointUrl: receiver.url, secret, store }));
    const company = await h.newCompany();

    await h.simulate(company, 'COMPLETED');
    await until(() => receiver.accepted().length === llcFormationEvents.length);
    await h.dispatcher.idle();
    const settled = store.roundTrips;
    // Nothing is due: nothing has reason to read the store (the harness has no polling), but for the dispatcher's
    // last look, woken by its last attempt, which may come after idle() returned.
    await sleep(100);
    const readWhileIdle = store.roundTrips - settled;

    expect((await h.eventsOf(company)).map((event) => event.type)).toEqual(llcFormationEvents);
    expect(receiver.accepted().map((event) => event.type)).toEqual(llcFormationEvents);
    // With a body that read a new key at each run (the timeline's, which took the clock inside it), the store was
    // never quiet: about 50 reads in these 100 ms, the timeline looking for due steps again and again.
    expect(readWhileIdle).toBeLessThanOrEqual(3);
  });
});
