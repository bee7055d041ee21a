const second = 1_000;
const minute = 60 * second;
const hour = 60 * minute;

/** Delays before attempts 2..8, as the contract's Webhooks section states them (about 28 hours in all). */
export const contractRetryScheduleMs: readonly number[] = Object.freeze([
  5 * second,
  5 * minute,
  30 * minute,
  2 * hour,
  5 * hour,
  10 * hour,
  10 * hour,
]);

/** The contract's timeout for a receiver to answer. */
export const contractAttemptTimeoutMs = 15 * second;

/**
 * The same schedule shape with every delay multiplied by `factor` (e.g. 1/1000 to replay 28 hours in 28 seconds).
 * Delays are rounded to whole milliseconds and never negative, because timers take nothing else.
 */
export function scaleSchedule(schedule: readonly number[], factor: number): number[] {
  if (!Number.isFinite(factor) || factor < 0) throw new RangeError(`scale factor must be a finite number >= 0, got ${factor}`);
  return schedule.map((delay) => Math.max(0, Math.round(delay * factor)));
}
