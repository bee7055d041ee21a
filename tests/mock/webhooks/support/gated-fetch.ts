/**
 * A `fetch` for the dispatcher (its `fetch` option) that can hold attempts back before they go on the wire, until
 * the test lets them go. What it holds is still an attempt in flight for the dispatcher (its lane claimed, a slot
 * of `maxConcurrency` taken), so a test can set up "this attempt is still going" without relying on how long
 * anything takes.
 */
import type { ReceivedEvent } from './receiver.ts';

export interface GatedFetch {
  fetch: typeof fetch;
  /** Attempts started and not yet answered (held ones included), and the most there were at once. */
  inFlight: number;
  maxInFlight: number;
  /** Attempts being held. */
  held: number;
  /** Lets every attempt held so far go on. */
  release(): void;
  /** Lets every held attempt go and holds none from now on. */
  open(): void;
}

/**
 * Holds the attempts whose event `shouldHold` picks; `onHeld` is told each time one more is held (it may release).
 * A held attempt still ends when the dispatcher aborts it (on close).
 */
export function gatedFetch(shouldHold: (event: ReceivedEvent) => boolean, onHeld?: (gate: GatedFetch) => void): GatedFetch {
  const waiting: (() => void)[] = [];
  let opened = false;

  const hold = (signal: AbortSignal | null | undefined) =>
    new Promise<void>((resolve, reject) => {
      const go = () => resolve();
      waiting.push(go);
      signal?.addEventListener('abort', () => {
        waiting.splice(waiting.indexOf(go), 1);
        gate.held = waiting.length;
        reject(signal.reason as Error);
      }, { once: true });
      gate.held = waiting.length;
      onHeld?.(gate);
    });

  const gate: GatedFetch = {
    inFlight: 0,
    maxInFlight: 0,
    held: 0,
    release() {
      for (const go of waiting.splice(0)) go();
      gate.held = 0;
    },
    open() {
      opened = true;
      gate.release();
    },
    async fetch(input, init) {
      gate.inFlight += 1;
      gate.maxInFlight = Math.max(gate.maxInFlight, gate.inFlight);
      try {
        const event = JSON.parse(String(init?.body)) as ReceivedEvent;
        if (!opened && shouldHold(event)) await hold(init?.signal);
        return await globalThis.fetch(input, init);
      } finally {
        gate.inFlight -= 1;
      }
    },
  };
  return gate;
}
