/**
 * A pipeline: small steps that every request walks in the same order. A step either decides the answer
 * (`respond`) and stops, or calls `next`. Finalising and writing the answer is not a step's: `sendAnswer` does it
 * once the pipeline has run (see send-answer.ts).
 */
import type { Exchange } from './exchange.ts';

export type Step = (exchange: Exchange, next: () => Promise<void>) => Promise<void> | void;

const done = Promise.resolve();

export function composePipeline(steps: readonly Step[]): (exchange: Exchange) => Promise<void> {
  const run = (exchange: Exchange, index: number): Promise<void> => {
    const step = steps[index];
    if (exchange.response || exchange.change || !step) return done;
    // Not an async function: a step that finishes synchronously costs no promise, which matters on the hot path.
    return step(exchange, () => run(exchange, index + 1)) ?? done;
  };
  return (exchange) => run(exchange, 0);
}
