/**
 * The request pipeline: small steps that every request walks in the same order. A step either decides the
 * answer (`respond`) and stops, or calls `next`. The moment a step has decided, the answer is finalised, in this
 * one place (checked against the contract, its headers completed: see finalise-answer.ts), so that the steps it
 * returns through (idempotency storing it, the journal recording it) see the answer exactly as it will be sent.
 */
import type { Exchange } from './exchange.ts';

export type Step = (exchange: Exchange, next: () => Promise<void>) => Promise<void> | void;

export type Finalise = (exchange: Exchange) => void;

const done = Promise.resolve();

export interface Pipeline {
  (exchange: Exchange): Promise<void>;
  /** Finalises an answer decided outside the steps (a failure the server caught); does nothing to a final one. */
  finalise: Finalise;
}

export function composePipeline(steps: Step[], finaliseAnswer: Finalise): Pipeline {
  const finalise: Finalise = (exchange) => {
    if (exchange.response && !exchange.response.finalHeaders) finaliseAnswer(exchange);
  };
  const run = (exchange: Exchange, index: number): Promise<void> => {
    const step = steps[index];
    if (exchange.response || !step) return done;
    const result = step(exchange, () => run(exchange, index + 1));
    // Not an async function: a step that finishes synchronously costs no promise, which matters on the hot path.
    if (result === undefined) {
      finalise(exchange);
      return done;
    }
    return result.then(() => finalise(exchange));
  };
  return Object.assign((exchange: Exchange) => run(exchange, 0), { finalise });
}
