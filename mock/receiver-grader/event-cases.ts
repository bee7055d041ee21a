/**
 * The cases of what a receiver must accept: each event type of the contract with the contract's example payload,
 * and the additions the contract promises it may make within `v1` (an event type, a property).
 */
import type { ServiceLimits } from '../../contract-model/contract-facts-type.ts';
import type { WebhookEvent, WebhookEventType } from '../webhooks/event-payloads.ts';
import type { GraderCase } from './case-types.ts';
import { signedDelivery } from './deliveries.ts';
import { expectAccepted } from './judging.ts';

/** A property no version of the contract has, as a later one may add. */
const addedProperty = 'addedLater';

export function eventCases(eventTypes: readonly WebhookEventType[], webhooks: ServiceLimits['webhooks']): GraderCase[] {
  return eventTypes.map((type) => ({
    id: `event-${type}`,
    group: 'events',
    title: `${type}, as the contract's example`,
    obligation: 'acceptEveryEventType',
    expectation: `A 2xx within ${webhooks.attemptTimeoutSeconds} s: a verified event of a type the contract defines.`,
    requests: 1,
    async run({ wire, secret, freshEvents, now }) {
      return expectAccepted([await wire.deliver(signedDelivery(eventOf(freshEvents(), type), [secret], now()))]);
    },
  }));
}

export function additionCases(eventTypes: readonly WebhookEventType[]): GraderCase[] {
  const [first] = eventTypes;
  if (first === undefined) throw new Error('the contract has no webhooks to build deliveries from');
  const laterType = addedEventType(eventTypes);
  return [
    {
      id: 'addition-event-type',
      group: 'additions',
      title: `An event type the contract may add later (${laterType})`,
      obligation: 'acceptAdditions',
      expectation: 'A 2xx: new event types may be added within v1, and a receiver answers 2xx to those it does not know.',
      requests: 1,
      async run({ wire, secret, freshEvents, now }) {
        // An event of a later version: a type this version does not have, on purpose.
        const event = { ...eventOf(freshEvents(), first), type: laterType } as unknown as WebhookEvent;
        return expectAccepted([await wire.deliver(signedDelivery(event, [secret], now()))]);
      },
    },
    {
      id: 'addition-property',
      group: 'additions',
      title: `A property the contract may add later, in the event and in its data (${addedProperty})`,
      obligation: 'acceptAdditions',
      expectation: 'A 2xx: new properties may be added to an event and its data within v1, and a receiver ignores those it does not know.',
      requests: 1,
      async run({ wire, secret, freshEvents, now }) {
        const event = eventOf(freshEvents(), first);
        // An event of a later version: this version's types do not have the property, on purpose.
        const added = { ...event, [addedProperty]: 'a property of a later version', data: { ...event.data, [addedProperty]: 'a property of a later version' } } as unknown as WebhookEvent;
        return expectAccepted([await wire.deliver(signedDelivery(added, [secret], now()))]);
      },
    },
  ];
}

/** A type named like the contract's (lower-case words joined by dots) that it does not define. */
function addedEventType(eventTypes: readonly string[]): string {
  const [family] = (eventTypes[0] ?? 'event').split('.');
  const type = `${family}.added_later`;
  if (eventTypes.includes(type)) throw new Error(`the contract defines ${type}: the battery needs a type it does not`);
  return type;
}

export function eventOf(events: ReadonlyMap<WebhookEventType, WebhookEvent>, type: WebhookEventType): WebhookEvent {
  const event = events.get(type);
  if (!event) throw new Error(`no example event of type ${type}`);
  return event;
}
