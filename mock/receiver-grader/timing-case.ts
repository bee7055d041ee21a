/**
 * How fast the receiver answers, over every delivery of the battery: the contract gives it its delivery timeout,
 * after which an attempt has failed. Judged on what the battery sent; it sends one delivery only when nothing else
 * was (the case run alone).
 */
import type { ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { WebhookEventType } from '../webhooks/event-payloads.ts';
import type { GraderCase, Sent } from './case-types.ts';
import { signedDelivery } from './deliveries.ts';
import { eventOf } from './event-cases.ts';

export function timingCase(eventTypes: readonly WebhookEventType[], webhooks: ServiceLimits['webhooks']): GraderCase {
  const [type] = eventTypes;
  if (type === undefined) throw new Error('the contract has no webhooks to build deliveries from');
  const timeoutMs = webhooks.attemptTimeoutSeconds * 1000;
  return {
    id: 'timing',
    group: 'timing',
    title: 'Every answer within the delivery timeout',
    obligation: 'answerWithinAttemptTimeout',
    expectation: `An answer to every delivery within ${webhooks.attemptTimeoutSeconds} s, the contract's delivery timeout: a slower one is a failed attempt, sent again.`,
    requests: 1,
    runsWhenStopped: true,
    async run(context) {
      const toReceiver = () => context.history().filter((sent) => sent.exchange.request.to === 'receiver');
      if (toReceiver().length === 0) await context.wire.deliver(signedDelivery(eventOf(context.freshEvents(), type), [context.secret], context.now()));
      const sent = toReceiver();
      const late = sent.filter(({ exchange }) => exchange.response === null ? exchange.error?.startsWith('timeout') === true : exchange.durationMs > timeoutMs);
      const times = sent.map(({ exchange }) => exchange.durationMs).sort((a, b) => a - b);
      const spread = `${sent.length} ${sent.length === 1 ? 'answer' : 'answers'} in ${Math.round(times[0] ?? 0)}–${Math.round(times.at(-1) ?? 0)} ms (median ${Math.round(times[Math.floor(times.length / 2)] ?? 0)} ms)`;
      if (late.length === 0) return { verdict: 'met', observation: `${spread}, within the ${webhooks.attemptTimeoutSeconds} s the contract allows.` };
      return { verdict: 'unmet', observation: `${spread}; ${late.length} beyond the ${webhooks.attemptTimeoutSeconds} s the contract allows: ${late.map(lateText).join(', ')}.` };
    },
  };
}

function lateText({ caseId, exchange }: Sent): string {
  return exchange.response === null ? `${caseId} (no answer within the timeout)` : `${caseId} (${Math.round(exchange.durationMs)} ms)`;
}
