/**
 * Ctrl-C, or a CI cancellation, must still stop the mock and the tool a runner started, even while they start.
 * The first SIGINT or SIGTERM aborts the run's signal: whatever is under way stops what it started, and the runner
 * ends with 128 + the signal's number. Should that unwinding hang, the process exits anyway after `graceMs`.
 */
import { constants } from 'node:os';

export interface Interrupt {
  signal: AbortSignal;
  /** 128 + the signal's number once interrupted; `undefined` before. */
  status(): number | undefined;
}

export function onInterrupt(graceMs = 15_000): Interrupt {
  const controller = new AbortController();
  let status: number | undefined;
  const handler = (name: NodeJS.Signals) => {
    if (status !== undefined) return;
    status = 128 + (constants.signals[name] ?? 0);
    console.error(`\n${name}: stopping…`);
    controller.abort(new Error(`interrupted by ${name}`));
    setTimeout(() => process.exit(status), graceMs).unref();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return { signal: controller.signal, status: () => status };
}
