/**
 * The request pipeline: small steps that every request walks in the same order. A step either decides the
 * answer (`respond`) and stops, or calls `next`. Steps may also act after `next` returns (journal, idempotency,
 * response validation).
 */
import type { Exchange } from './exchange.ts';

export type Step = (exchange: Exchange, next: () => Promise<void>) => Promise<void> | void;

const done = Promise.resolve();

export function composePipeline(steps: Step[]): (exchange: Exchange) => Promise<void> {
  return (exchange) => {
    // Not an async function: a step that finishes synchronously costs no promise, which matters on the hot path.
    const run = (index: number): Promise<void> => {
      const step = steps[index];
      if (exchange.response || !step) return done;
      return step(exchange, () => run(index + 1)) ?? done;
    };
    return run(0);
  };
}
