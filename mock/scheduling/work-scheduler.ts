/**
 * Runs a piece of background work (the formation timeline, webhook delivery) when it is next due: at the time the
 * work itself reports, whenever this process wakes it (it just scheduled something), and, on a store other
 * processes also write, at least every `pollMs` (another replica may have scheduled something, or died holding
 * work whose lease then runs out). One run at a time; a wake during a run makes it run again. A run that fails (the
 * store unavailable) is tried again later and later, up to `maxRetryAfterErrorMs`, so that an outage is waited out
 * without busy work, and the work resumes within that much of its end.
 */
export interface WorkScheduler {
  /** Runs the work at `at` (now, when omitted), unless a run is already due earlier. */
  wake(at?: number): void;
  /** Stops the timers and waits for a run in progress. */
  close(): Promise<void>;
}

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer delay fires after 1 ms instead. */
const maxTimerMs = 2 ** 31 - 1;

export function createWorkScheduler(options: {
  /** Does what is due and says when to run next (undefined: nothing waits). */
  work: () => Promise<number | undefined>;
  /** Run at least this often, for work other processes may add; undefined: only when due or woken. */
  pollMs?: number;
  /** A run failed: `failures` in a row, this one included; the next run is in `retryInMs`. */
  onError: (error: unknown, failures: { count: number; retryInMs: number }) => void;
  /** A run succeeded after `count` failed ones. */
  onRecovered?: (failures: { count: number }) => void;
  /** How long to wait after a first failed run before the next; twice as long after each further one. */
  retryAfterErrorMs?: number;
  maxRetryAfterErrorMs?: number;
}): WorkScheduler {
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let running: Promise<void> | undefined;
  let rerun = false;
  let closed = false;
  let failures = 0;

  const arm = (at: number) => {
    // Further off than a timer can wait (a step that is never due): a wake or a poll will run the work before then.
    if (closed || at >= timerAt || at - Date.now() > maxTimerMs) return;
    clearTimeout(timer);
    timerAt = at;
    // At least a millisecond: a run that reports work due now yields to requests before it runs again.
    timer = setTimeout(fire, Math.max(1, at - Date.now()));
    timer.unref();
  };

  const runOnce = async (): Promise<number | undefined> => {
    try {
      const next = await options.work();
      if (failures > 0) options.onRecovered?.({ count: failures });
      failures = 0;
      return next;
    } catch (error) {
      failures += 1;
      const first = options.retryAfterErrorMs ?? 500;
      const retryInMs = Math.min(first * 2 ** Math.min(failures - 1, 20), options.maxRetryAfterErrorMs ?? 5_000);
      options.onError(error, { count: failures, retryInMs });
      return Date.now() + retryInMs;
    }
  };

  const fire = () => {
    timerAt = Number.POSITIVE_INFINITY;
    timer = undefined;
    if (running) {
      rerun = true;
      return;
    }
    running = (async () => {
      let next: number | undefined;
      do {
        rerun = false;
        next = await runOnce();
      } while (rerun && !closed);
      running = undefined;
      const poll = options.pollMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.pollMs;
      arm(Math.min(next ?? Number.POSITIVE_INFINITY, poll));
    })();
  };

  return {
    wake(at = Date.now()) {
      if (running && at <= Date.now()) {
        rerun = true;
        return;
      }
      arm(at);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
