/**
 * The cases of Standard Webhooks signatures: deliveries a receiver must refuse (no signature, a wrong one, one by
 * another secret, a timestamp beyond the contract's tolerance either way, a body altered after signing), and the
 * two signatures of a secret rotation, either of which a receiver must accept.
 */
import type { ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { WebhookEventType } from '../webhooks/event-payloads.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import type { CaseContext, Finding, GraderCase } from './case-types.ts';
import { signedDelivery, withoutSignature, withRandomSignature, withTamperedBody } from './deliveries.ts';
import { eventOf } from './event-cases.ts';
import { expectAccepted, expectRefused } from './judging.ts';
import type { Delivery } from './wire.ts';

/**
 * How far beyond the tolerance the stale and future timestamps are: a minute, so that a receiver whose clock is
 * off from this machine's by less than that is judged on its tolerance, not on its clock.
 */
const beyondToleranceSeconds = 60;

/** A delivery the receiver must refuse, and why, for the report. */
type Forgery = (context: CaseContext) => { delivery: Delivery; why: string };

interface Refusal {
  id: string;
  title: string;
  /** Why the service never sends such a delivery: what the expectation says. */
  because: string;
  forge: Forgery;
}

export function signatureCases(eventTypes: readonly WebhookEventType[], webhooks: ServiceLimits['webhooks']): GraderCase[] {
  const [type] = eventTypes;
  if (type === undefined) throw new Error('the contract has no webhooks to build deliveries from');
  const tolerance = webhooks.timestampToleranceSeconds;
  const offset = tolerance + beyondToleranceSeconds;
  const signed = (context: CaseContext, secrets: readonly string[], shiftSeconds = 0) => {
    const event = eventOf(context.freshEvents(), type);
    return { event, delivery: signedDelivery(event, secrets, new Date(context.now().getTime() + shiftSeconds * 1000)) };
  };
  const refusals: Refusal[] = [
    {
      id: 'signature-missing',
      title: 'No webhook-signature header',
      because: 'a delivery without a signature was not sent by the service',
      forge: (context) => ({ delivery: withoutSignature(signed(context, [context.secret]).delivery), why: 'it carries no signature' }),
    },
    {
      id: 'signature-wrong',
      title: 'A signature no secret made',
      because: 'a signature that matches no secret was not made by the service',
      forge: (context) => ({ delivery: withRandomSignature(signed(context, [context.secret]).delivery), why: 'its signature matches no secret' }),
    },
    {
      id: 'signature-other-secret',
      title: 'A signature by another secret',
      because: "a delivery signed with another secret is another endpoint's, or a forger's",
      forge: (context) => ({ delivery: signed(context, [newWebhookSecret()]).delivery, why: 'it is signed with another secret' }),
    },
    {
      id: 'timestamp-too-old',
      title: `A webhook-timestamp ${offset} s old`,
      because: `a timestamp more than the contract's ${tolerance} s from the receiver's clock is a replay`,
      forge: (context) => ({ delivery: signed(context, [context.secret], -offset).delivery, why: `its timestamp is ${offset} s old, beyond the ${tolerance} s the contract allows` }),
    },
    {
      id: 'timestamp-too-new',
      title: `A webhook-timestamp ${offset} s ahead`,
      because: `a timestamp more than the contract's ${tolerance} s from the receiver's clock cannot be trusted, ahead of it too`,
      forge: (context) => ({ delivery: signed(context, [context.secret], offset).delivery, why: `its timestamp is ${offset} s ahead, beyond the ${tolerance} s the contract allows` }),
    },
    {
      id: 'body-tampered',
      title: 'A body altered after it was signed',
      because: 'the signature covers the raw body, and one altered after signing was not sent as it is',
      forge: (context) => {
        const { event, delivery } = signed(context, [context.secret]);
        const tampered = withTamperedBody(event, delivery);
        return { delivery: tampered.delivery, why: `its ${tampered.field} was changed after it was signed` };
      },
    },
  ];
  return refusals.map(({ id, title, because, forge }) => ({
    id,
    group: 'signatures',
    title,
    obligation: 'refuseUnverified',
    expectation: `A 4xx, never a 2xx: ${because}.`,
    requests: 1,
    async run(context) {
      const { delivery, why } = forge(context);
      return expectRefused(await context.wire.deliver(delivery), why);
    },
  }));
}

export function rotationCases(eventTypes: readonly WebhookEventType[]): GraderCase[] {
  const [type] = eventTypes;
  if (type === undefined) throw new Error('the contract has no webhooks to build deliveries from');
  const rotation = (id: string, title: string, holds: string, order: (yours: string, other: string) => string[]): GraderCase => ({
    id,
    group: 'rotation',
    title,
    obligation: 'acceptAnyMatchingSignature',
    expectation: `A 2xx: during a secret rotation both secrets sign, and a receiver accepts a delivery when any one signature matches (${holds}).`,
    requests: 1,
    async run({ wire, secret, freshEvents, now }): Promise<Finding> {
      const delivery = signedDelivery(eventOf(freshEvents(), type), order(secret, newWebhookSecret()), now());
      return expectAccepted([await wire.deliver(delivery)]);
    },
  });
  return [
    rotation('rotation-yours-first', 'Two signatures, the first by its secret', 'a receiver still holding the old secret while the new one signs beside it', (yours, other) => [yours, other]),
    rotation('rotation-yours-second', 'Two signatures, the second by its secret', 'a receiver given the new secret while the old one still signs', (yours, other) => [other, yours]),
  ];
}
