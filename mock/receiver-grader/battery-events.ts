/**
 * The events the battery sends, built from the contract's own examples of its `webhooks` (one per event type), so
 * that a valid payload is what the contract shows, and an event type added to it is graded at once. The examples
 * share their ids (one company, its customer, its documents, the event a disabled endpoint failed on); each set
 * of events made here has fresh ids in their place, replaced consistently, so that a receiver that remembers an
 * earlier battery meets new events, and a set made for another company is another company.
 */
import { deref, type ContractDocument, type JsonObject } from '../../contract-model/document.ts';
import { newId, type IdPrefix } from '../ids.ts';
import { toTimestamp, type WebhookEvent, type WebhookEventType } from '../webhooks/event-payloads.ts';

/** An identifier as the contract shapes them: a prefix, `_`, and 24 letters and digits (mock/ids.ts). */
const idShape = /^([a-z]+)_[0-9A-Za-z]{24}$/;

/** Each webhook of the contract with its first example, in the contract's order. */
export function contractExampleEvents(contract: ContractDocument): Map<WebhookEventType, WebhookEvent> {
  const examples = new Map<WebhookEventType, WebhookEvent>();
  for (const [type, item] of Object.entries(contract.webhooks ?? {})) {
    const body = deref(contract, deref(contract, deref(contract, item).post).requestBody);
    const media = (body.content as Record<string, JsonObject> | undefined)?.['application/json'];
    const [first] = Object.values((media?.examples as Record<string, unknown> | undefined) ?? {});
    if (first === undefined) throw new Error(`the contract's webhook ${type} has no example of its body to build a delivery from`);
    examples.set(type as WebhookEventType, deref<{ value: WebhookEvent }>(contract, first).value);
  }
  return examples;
}

/** The examples again, every id in them a new one of its kind (the same new one wherever it stood), stamped `at`. */
export function withFreshIds(examples: ReadonlyMap<WebhookEventType, WebhookEvent>, at: Date): Map<WebhookEventType, WebhookEvent> {
  const fresh = new Map<string, string>();
  const renew = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const prefix = idShape.exec(value)?.[1];
      if (prefix === undefined) return value;
      // newId makes any prefix; the contract's kinds are those mock/ids.ts names.
      if (!fresh.has(value)) fresh.set(value, newId(prefix as IdPrefix));
      return fresh.get(value);
    }
    if (Array.isArray(value)) return value.map(renew);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, renew(inner)]));
    return value;
  };
  return new Map([...examples].map(([type, event]) => [type, { ...(renew(event) as WebhookEvent), timestamp: toTimestamp(at) }]));
}
