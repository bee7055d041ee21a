/**
 * Applies a fault armed through `/_mock/faults` to this request (see faults.ts): holds it, then answers the
 * documented answer the fault names, as a request's own `Prefer` would have it (forced-answers/). After the
 * idempotency step, so that a held create is in flight for its key; a forced answer is never stored for it.
 */
import { forceAnswer, type AnswersOf } from '../forced-answers/force-answer.ts';
import type { Step } from '../pipeline/pipeline.ts';
import { choiceOf, type FaultRegistry } from './faults.ts';

export function injectFaults(faults: FaultRegistry, answersOf: AnswersOf): Step {
  return async (exchange, next) => {
    const operation = exchange.operation;
    const fault = operation && faults.take(operation.operationId, exchange.partner?.id);
    if (!operation || !fault) return next();
    if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    const choice = choiceOf(fault);
    if (!choice) return next();
    const problem = forceAnswer(exchange, operation.operationId, answersOf(operation.operationId), choice);
    // Checked when it was armed, against the same contract.
    if (problem) throw new Error(`a fault armed on ${operation.operationId} names no documented answer: ${problem}`);
  };
}
