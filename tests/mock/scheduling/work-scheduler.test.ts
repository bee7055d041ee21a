/** The background scheduler runs work when it is due: not before, not in a loop when the next run is far off. */
import { afterEach, describe, expect, it } from 'vitest';
import { never } from '../../../mock/formation/timeline-records.ts';
import { createWorkScheduler, type WorkScheduler } from '../../../mock/scheduling/work-scheduler.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const open: WorkScheduler[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((scheduler) => scheduler.close()));
});

function counting(next: () => number | undefined, pollMs?: number) {
  let runs = 0;
  const scheduler = createWorkScheduler({
    pollMs,
    onError: (error) => {
      throw error;
    },
    async work() {
      runs += 1;
      return next();
    },
  });
  open.push(scheduler);
  return { scheduler, runs: () => runs };
}

describe('the work scheduler', () => {
  it('runs once and then waits, when the next run is further off than a timer can wait (the manual timeline)', async () => {
    const { scheduler, runs } = counting(() => never);
    scheduler.wake();
    await sleep(100);
    expect(runs()).toBe(1);
  });

  it('runs again at the time the work gives', async () => {
    const { scheduler, runs } = counting(() => (runs() < 3 ? Date.now() + 20 : undefined));
    scheduler.wake();
    await sleep(200);
    expect(runs()).toBe(3);
  });

  it('polls on a shared store even when the work says nothing waits', async () => {
    const { scheduler, runs } = counting(() => undefined, 20);
    scheduler.wake();
    await sleep(150);
    expect(runs()).toBeGreaterThan(2);
  });
});
