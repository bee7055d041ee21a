/**
 * The cases of at-least-once delivery: the same `webhook-id` sent twice is accepted both times and, where the
 * partner lets the battery see effects (a probe), processed once; and a copy of an earlier event arriving after a
 * later one of its company, which the contract permits (a redelivery) and a receiver should not let move the
 * company back.
 */
import type { WebhookEvent, WebhookEventType } from '../webhooks/event-payloads.ts';
import type { CaseContext, Finding, GraderCase } from './case-types.ts';
import { signedDelivery } from './deliveries.ts';
import { eventOf } from './event-cases.ts';
import { answerText, expectAccepted } from './judging.ts';
import type { Exchange } from './report-types.ts';

/** Sends the event as a first attempt and then again as a retry would: the same id and body, signed anew. */
async function sendTwice(context: CaseContext, event: WebhookEvent): Promise<Exchange[]> {
  const first = await context.wire.deliver(signedDelivery(event, [context.secret], context.now()));
  const again = await context.wire.deliver(signedDelivery(event, [context.secret], context.now()));
  return [first, again];
}

export function repeatCases(eventTypes: readonly WebhookEventType[]): GraderCase[] {
  const [type] = eventTypes;
  if (type === undefined) throw new Error('the contract has no webhooks to build deliveries from');
  return [
    {
      id: 'repeat-accepted',
      group: 'repeats',
      title: 'The same webhook-id twice',
      obligation: 'acceptRepeats',
      expectation: 'A 2xx both times: delivery is at least once, and a repeat the receiver has seen is acknowledged like the first.',
      requests: 2,
      async run(context) {
        return expectAccepted(await sendTwice(context, eventOf(context.freshEvents(), type)), ['first', 'again']);
      },
    },
    {
      id: 'repeat-processed-once',
      group: 'repeats',
      title: 'The same webhook-id twice, its effects read at the probe',
      obligation: 'processRepeatsOnce',
      expectation: 'Processed once: a receiver deduplicates on the event id (the probe answers {"processed": 1}).',
      requests: 3,
      async run(context) {
        const event = eventOf(context.freshEvents(), type);
        const sent = await sendTwice(context, event);
        const reading = context.wire.readProbe(event.id);
        if (!reading) return { verdict: 'unobservable', observation: 'No probe given (--probe URL): whether the receiver processed it once cannot be seen from outside.' };
        return processedOnce(sent, await reading);
      },
    },
  ];
}

/** What the probe says of the event sent twice. */
function processedOnce(sent: readonly Exchange[], probe: Exchange): Finding {
  const deliveries = sent.map((exchange, index) => `${index === 0 ? 'first' : 'again'}: ${answerText(exchange)}`).join('; ');
  const processed = processedCount(probe);
  if (processed === undefined) {
    return { verdict: 'unmet', observation: `${deliveries}. The probe ${answerText(probe).toLowerCase()}, not 200 with {"processed": N}.` };
  }
  const times = processed === 1 ? 'once' : `${processed} times`;
  return { verdict: processed === 1 ? 'met' : 'unmet', observation: `${deliveries}. The probe says it was processed ${times}.` };
}

function processedCount(probe: Exchange): number | undefined {
  if (probe.response?.status !== 200 || probe.response.truncated) return undefined;
  try {
    const processed = (JSON.parse(probe.response.body) as { processed?: unknown } | null)?.processed;
    return Number.isInteger(processed) && (processed as number) >= 0 ? (processed as number) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first two event types of a company, in the contract's order (which is its lifecycle's): the earlier one is
 * sent, then the later one, then the earlier one again, as a redelivery would arrive.
 */
export function lateCopyCase(eventTypes: readonly WebhookEventType[]): GraderCase {
  const [earlier, later] = eventTypes;
  if (earlier === undefined || later === undefined) throw new Error('the contract needs two webhooks for the late-copy case');
  return {
    id: 'late-copy',
    group: 'ordering',
    title: `A copy of ${earlier} after ${later}, of one company`,
    obligation: 'keepLateCopiesFromMovingBack',
    expectation: `A 2xx to each, and the company left as ${later} made it: a copy of an earlier event can arrive after later ones of its company (a redelivery), and must not move it back.`,
    requests: 3,
    async run(context) {
      const events = context.freshEvents();
      const [first, second] = [eventOf(events, earlier), eventOf(events, later)];
      const sent: Exchange[] = [];
      for (const event of [first, second, first]) sent.push(await context.wire.deliver(signedDelivery(event, [context.secret], context.now())));
      const accepted = expectAccepted(sent, [earlier, later, `${earlier} again`]);
      if (accepted.verdict === 'unmet') return accepted;
      return {
        verdict: 'unobservable',
        observation: `${accepted.observation} Whether the late copy moved the company back cannot be seen from outside: deduplicate on id, and keep what an event says only when it is ahead of what is held.`,
      };
    },
  };
}
