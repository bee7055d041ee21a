/**
 * The background scheduler runs work when it is due: not before, not in a loop when the next run is far off; and
 * while runs fail (the store down), less and less often, up to a bound, until one succeeds.
 */
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

  it('waits longer after each failed run, up to its bound, reports each failure, and says when the work resumed', async () => {
    const failuresSeen: { count: number; retryInMs: number }[] = [];
    const recovered: number[] = [];
    const runsAt: number[] = [];
    const scheduler = createWorkScheduler({
      retryAfterErrorMs: 10,
      maxRetryAfterErrorMs: 40,
      onError: (_error, failures) => failuresSeen.push(failures),
      onRecovered: (failures) => recovered.push(failures.count),
      async work() {
        runsAt.push(Date.now());
        if (runsAt.length <= 5) throw new Error('the store is unavailable');
        return undefined;
      },
    });
    open.push(scheduler);
    scheduler.wake();
    await sleep(400);
    expect(failuresSeen).toEqual([
      { count: 1, retryInMs: 10 },
      { count: 2, retryInMs: 20 },
      { count: 3, retryInMs: 40 },
      { count: 4, retryInMs: 40 },
      { count: 5, retryInMs: 40 },
    ]);
    expect(recovered).toEqual([5]);
    expect(runsAt).toHaveLength(6);
    // Not before the back-off said.
    for (const [index, failure] of failuresSeen.entries()) expect((runsAt[index + 1] as number) - (runsAt[index] as number)).toBeGreaterThanOrEqual(failure.retryInMs - 2);
  });
});
