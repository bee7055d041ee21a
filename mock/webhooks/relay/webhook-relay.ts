/**
 * The webhook relay (`POST /_mock/relay/{endpointId}`): where a real sandbox sends its webhook events when the mock
 * stands between it and a team's app, so that the events are held against the contract as the proxy holds the
 * sandbox's answers. Each event is verified with the sandbox's secret (the endpoint's `relay.secret`), checked
 * against the contract's `webhooks`, and stored in the partner's outbox for the endpoint, which delivers it to the
 * endpoint's URL byte for byte, under the sandbox's `webhook-id`, with the mock's retries. The verdict goes to the
 * request journal (`note`) and back to the sandbox.
 *
 * What is forwarded: a verified event of a type the contract knows, under an id the contract's `EventId` allows,
 * even when its body breaks the contract (the receiver should meet what the sandbox really sends), once to each
 * endpoint it is sent to, if the endpoint receives its type (endpoints/receiving.ts). What is not: an unverified
 * one (a receiver must refuse it, and a relay that re-signed it would launder it), and one the contract could not
 * name, which the partner portal could not list either.
 *
 * Anyone who knows a relay URL can post to it: what is refused before the signature holds is logged and counted on
 * the endpoint, never journaled, since the journal is the partner's history, and bounded, and such posts would push
 * it out. Only a verified event, which the sandbox sent, is journaled.
 */
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { components } from '../../../generated/mock-admin/openapi.js';
import type { ContractDocument } from '../../../contract-model/document.ts';
import { schemaCompilerOf } from '../../../contract-model/schema-compiler.ts';
import { compileWebhookCheck, type WebhookCheck } from '../../../contract-model/webhook-check.ts';
import { ApiError, notFound } from '../../http/api-error.ts';
import { queueFull } from '../full-queue.ts';
import { cut, withoutControls } from '../../journal/captured-message.ts';
import { boundedViolations } from '../../journal/request-journal.ts';
import type { Store } from '../../store/store.ts';
import type { WebhookEvent } from '../event-payloads.ts';
import { countRelayRefusal, getEndpoint, type RelayRefusal } from '../endpoints/endpoint-records.ts';
import { subscribesTo, switchedOff } from '../endpoints/receiving.ts';
import type { WebhookOutbox } from '../outbox/outbox.ts';
import { maskEndpointUrl } from '../endpoint-url.ts';
import { relayLanePrefix } from '../outbox/outbox-tables.ts';

export type RelayedWebhook = components['schemas']['RelayedWebhook'];

/** One event as it reached the relay. */
export interface ArrivingEvent {
  /** The body's bytes as sent: the signature is over them. */
  rawBody: Uint8Array;
  /** The body parsed (readBody refused one that is not JSON). */
  body: unknown;
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string };
  /** Journals the request in the endpoint's partner's scope, with the verdict when there is one: only once it is verified. */
  note: (partnerId: string, verdict?: RelayedWebhook) => void;
}

export interface WebhookRelay {
  receive(endpointId: string, event: ArrivingEvent): Promise<RelayedWebhook>;
}

const shownLength = 100;
/** The admin contract's bound on a refusal's reason (`RelayRefusals`). */
const maxReasonLength = 1000;

export function createWebhookRelay(options: { store: Store; outbox: WebhookOutbox; notify: () => void; contract: ContractDocument; logger: Pick<Logger, 'info' | 'warn' | 'error'> }): WebhookRelay {
  const { store, outbox, logger } = options;
  // Compiled on the first event: most mocks never relay, and compiling the contract's schemas takes a while.
  let compiled: { check: WebhookCheck; isEventId: (id: string) => boolean } | undefined;
  const contractChecks = () => {
    if (compiled) return compiled;
    const compiler = schemaCompilerOf(options.contract);
    const eventId = compiler.component('EventId');
    return (compiled = { check: compileWebhookCheck(options.contract, compiler), isEventId: (id: string) => eventId(id) === true });
  };
  return {
    async receive(endpointId, arriving) {
      const { check, isEventId } = contractChecks();
      const endpoint = await store.read((tx) => getEndpoint(tx, undefined, endpointId));
      if (!endpoint) throw notFound(`webhook endpoint ${endpointId}`);
      const { partnerId } = endpoint;
      const secret = endpoint.relay?.secret;
      if (secret === undefined) {
        const message = `The relay of webhook endpoint ${endpointId} awaits the sandbox's secret: set relay.secret on it (updateWebhookEndpoint) to the secret the sandbox shows for this URL. Until then what arrives is refused.`;
        logger.warn({ endpointId }, "relayed webhook refused: the relay awaits the sandbox's secret");
        const counted: RelayRefusal = { at: Date.now(), signature: 'unverifiable', reason: "The relay awaits the sandbox's secret (relay.secret)." };
        await store.write((tx) => countRelayRefusal(tx, endpointId, counted)).catch((error: unknown) => logger.warn({ endpointId, err: error }, 'relayed webhook refusal not counted'));
        throw new ApiError(409, 'E_WEBHOOK_RELAY_NOT_CONFIGURED', message);
      }
      const { headers, body } = arriving;
      const eventId = headers['webhook-id'];
      const type = (body as { type?: unknown } | null)?.type;
      const verdict: RelayedWebhook = {
        endpointId,
        eventId: eventId === undefined ? null : shown(eventId),
        type: typeof type === 'string' ? shown(type) : null,
        signature: 'valid',
        violations: [],
        forwarded: 'refused',
      };
      const refusal = signatureRefusal(secret, arriving);
      if (refusal) {
        logger.warn({ endpointId, eventId: verdict.eventId, reason: refusal.message }, 'relayed webhook refused: signature');
        const counted: RelayRefusal = { at: Date.now(), signature: refusal.signature, reason: cut(withoutControls(refusal.message), maxReasonLength) };
        // The refusal is the answer whatever becomes of its count: a store that cannot count it now is said in the log.
        await store.write((tx) => countRelayRefusal(tx, endpointId, counted)).catch((error: unknown) => logger.warn({ endpointId, err: error }, 'relayed webhook refusal not counted'));
        throw new ApiError(401, 'E_WEBHOOK_SIGNATURE_INVALID', `${refusal.message} (webhook endpoint ${endpointId}).`);
      }
      const lowerCased = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>;
      const violations = check.problems(body, lowerCased);
      const id = eventId as string;
      if (!isEventId(id)) violations.push(`header webhook-id: ${JSON.stringify(cut(id, shownLength))} is not an EventId of the contract, so the event is not forwarded`);
      // What a sender controls (a type, a property name) shows on one plain line, as the journal's schemas want.
      verdict.violations = boundedViolations(violations.map(withoutControls));
      // Only an event the contract can name is stored for the partner's event log, and delivered if the endpoint
      // receives its type.
      if (typeof type === 'string' && check.knows(type) && isEventId(id)) {
        const notReceived = !subscribesTo(endpoint, type) ? 'unsubscribed' : switchedOff(await outbox.endpoint(endpointId)) ? 'switched-off' : undefined;
        const stored = await outbox.storeFromOutside(
          {
            partnerId,
            event: { ...(body as object), id, type } as WebhookEvent,
            orderingKey: orderingKeyOf(body, type),
            endpointIds: notReceived ? [] : [endpointId],
            body: Buffer.from(arriving.rawBody).toString('utf8'),
          },
          Date.now(),
        );
        if (stored === 'dropped') {
          // Answered 503, so that the sandbox sends it again: queued then, once the partner's queue has room.
          arriving.note(partnerId);
          throw queueFull(`the event for webhook endpoint ${endpointId}`, 'Send it again after Retry-After.');
        }
        verdict.forwarded = notReceived ?? (stored === 'queued' ? 'queued' : 'duplicate');
        if (stored === 'queued') options.notify();
      }
      arriving.note(partnerId, verdict);
      logger.info({ endpointId, eventId: verdict.eventId, type: verdict.type, forwarded: verdict.forwarded, violations: verdict.violations.length, to: maskEndpointUrl(endpoint.url) }, 'webhook relayed');
      return verdict;
    },
  };
}

/** Why an event's signature does not hold; undefined when it does. */
function signatureRefusal(secret: string, arriving: ArrivingEvent): { signature: 'missing' | 'invalid'; message: string } | undefined {
  const { headers } = arriving;
  const missing = (['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const).filter((name) => headers[name] === undefined);
  if (missing.length > 0) return { signature: 'missing', message: `The event lacks ${missing.join(', ')}: a Standard Webhooks event carries webhook-id, webhook-timestamp and webhook-signature` };
  try {
    new Webhook(secret).verify(Buffer.from(arriving.rawBody), headers as Record<string, string>);
    return undefined;
  } catch (error) {
    const reason = (error as Error).message;
    // The library's words, made to say what to check.
    const message = /timestamp/i.test(reason)
      ? `The event's webhook-timestamp is more than five minutes from now (${reason}): a replay, or a clock that is off`
      : `No signature in webhook-signature matches the relay's secret (${reason}): check the secret given in relay.secret`;
    return { signature: 'invalid', message };
  }
}

/**
 * The lane an event goes in: one per company, as the mock's own events, one for the others; apart from the mock's
 * own lanes (`relayLanePrefix`), so that the dispatcher knows a relayed event by its lane (it may be signed with the
 * sandbox's secret, which the mock's own events never are) and no sender can name a lane of the mock's.
 */
function orderingKeyOf(body: unknown, type: string): string {
  const company = (body as { data?: { serviceCompanyId?: unknown } }).data?.serviceCompanyId;
  return `${relayLanePrefix}${typeof company === 'string' && /^[!-~]{1,80}$/.test(company) ? company : type}`;
}

function shown(text: string): string {
  return cut(withoutControls(text), shownLength);
}
