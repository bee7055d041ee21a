/**
 * The request pipeline: small steps that every request walks in the same order. A step either decides the
 * answer (`respond`) and stops, or calls `next`. Steps may also act after `next` returns (journal, idempotency,
 * response validation).
 */
import type { Exchange } from './exchange.ts';

export type Step = (exchange: Exchange, next: () => Promise<void>) => Promise<void> | void;

export function composePipeline(steps: Step[]): (exchange: Exchange) => Promise<void> {
  return (exchange) => {
    const run = async (index: number): Promise<void> => {
      if (exchange.response) return;
      const step = steps[index];
      if (step) await step(exchange, () => run(index + 1));
    };
    return run(0);
  };
}
