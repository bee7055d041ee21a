/**
 * The topics of the change stream (`streamChanges`, the admin contract's `ChangeTopic`), and how a feature announces
 * one: inside the transaction that makes the change, as a notice of the store (store/notices.ts), so that it is told
 * once the change is committed, never for one that is not, and on Redis to every process. A channel is
 * `topic:partner`, or `topic` alone for what concerns every partner.
 */
import type { components } from '../../generated/mock-admin/openapi.js';
import { everything } from '../store/notices.ts';
import type { Tx } from '../store/store.ts';

export type ChangeTopic = components['schemas']['ChangeTopic'];

/** Every topic, once: the compiler holds it to the contract's enum, both ways. */
const topicSet: Record<ChangeTopic, true> = { customers: true, companies: true, documents: true, events: true, endpoints: true, faults: true, settings: true };
export const allTopics = Object.keys(topicSet) as ChangeTopic[];

/** A topic of one partner's, or of every partner's. */
export interface Change {
  topic: ChangeTopic;
  partnerId?: string;
}

export function channelOf(change: Change): string {
  return change.partnerId === undefined ? change.topic : `${change.topic}:${change.partnerId}`;
}

/** Tells, once the transaction commits, that the partner's topic changed. */
export function announce(tx: Tx, topic: ChangeTopic, partnerId: string | undefined): void {
  tx.notify(channelOf(partnerId === undefined ? { topic } : { topic, partnerId }));
}

/**
 * What a notice's channel says changed: a topic, a topic of a partner's, or everything (`*`); undefined for a
 * channel that is not a change's.
 */
export function changeOf(channel: string): Change | typeof everything | undefined {
  if (channel === everything) return everything;
  const colon = channel.indexOf(':');
  const topic = colon < 0 ? channel : channel.slice(0, colon);
  if (!Object.hasOwn(topicSet, topic)) return undefined;
  return colon < 0 ? { topic: topic as ChangeTopic } : { topic: topic as ChangeTopic, partnerId: channel.slice(colon + 1) };
}
