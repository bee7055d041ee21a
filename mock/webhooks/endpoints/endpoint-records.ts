/**
 * A partner's webhook endpoints as the store keeps them (the partner portal): at most a given number per partner,
 * listed in the order created, found by id alone for delivery (which knows the endpoint but not its partner). An
 * endpoint that goes takes with it what waits for it in the outbox (the caller's `forgetEndpoint`).
 */
import { key, parts, within } from '../../store/keys.ts';
import { table, type Tx } from '../../store/store.ts';
import { announce } from '../../changes/change-topics.ts';

/** A partner's webhook endpoint, as configured in the portal. Whether it is disabled is the outbox's. */
export interface WebhookEndpointRecord {
  id: string;
  partnerId: string;
  url: string;
  description: string | null;
  /** Event types, or `*` for all. */
  enabledEvents: string[];
  /**
   * The signing secrets, newest first: the current one (no expiry) and, during a rotation, the previous one until
   * its `expiresAt`. Every delivery is signed with each secret not yet expired.
   */
  secrets: { secret: string; expiresAt: number | null }[];
  /**
   * Its relay of a real sandbox's events (`/_mock/relay/{id}`, which every endpoint has): the sandbox's secret once
   * given, which verifies what arrives, and which secret signs what is forwarded (this endpoint's, or the
   * sandbox's). Absent as long as nothing was set: the relay awaits its secret, and signs with the endpoint's.
   */
  relay?: WebhookRelayRecord;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookRelayRecord {
  /** Absent until the sandbox's secret is given: the relay refuses what arrives meanwhile. */
  secret?: string;
  signWith: 'endpoint' | 'upstream';
}

/** An event the endpoint's relay refused: its signature was missing or did not hold, or it had no secret yet. */
export interface RelayRefusal {
  at: number;
  signature: 'missing' | 'invalid' | 'unverifiable';
  reason: string;
}

/** What an endpoint's relay refused since its relay was last set: how many, and the last one. */
export interface RelayRefusals {
  count: number;
  last: RelayRefusal | null;
}

const endpoints = table<WebhookEndpointRecord>('webhook_endpoints');
/** partner, createdAt, id: a partner's endpoints in the order created. */
const byPartner = table<number>('webhook_endpoints_by_partner', { ordered: true });
/** partner → how many it has: read (not counted from the list) so that two creates at once cannot both pass the cap. */
const counts = table<number>('webhook_endpoint_counts');
/**
 * endpoint → how many events its relay refused, and the last of them. Written without being read, so that refusals
 * arriving together never make one another retry (on Redis).
 */
const relayRefusalCounts = table<number>('webhook_relay_refusal_counts');
const lastRelayRefusals = table<RelayRefusal>('webhook_relay_last_refusals');

/** Stores a new endpoint; false (and nothing stored) when its partner already has `maxPerPartner`. */
export function createEndpoint(tx: Tx, endpoint: WebhookEndpointRecord, maxPerPartner: number): boolean {
  const count = tx.get(counts, endpoint.partnerId) ?? 0;
  if (count >= maxPerPartner) return false;
  tx.put(counts, endpoint.partnerId, count + 1);
  tx.put(endpoints, endpoint.id, endpoint);
  tx.put(byPartner, key(endpoint.partnerId, endpoint.createdAt, endpoint.id), 1);
  announce(tx, 'endpoints', endpoint.partnerId);
  return true;
}

/** The partner's endpoints, oldest first. */
export function listEndpoints(tx: Tx, partnerId: string): WebhookEndpointRecord[] {
  const entries = tx.scan(byPartner, within([partnerId], { limit: Number.MAX_SAFE_INTEGER }));
  const found = tx.getMany(endpoints, entries.map((entry) => parts(entry.key)[2] as string));
  return found.filter((endpoint): endpoint is WebhookEndpointRecord => endpoint !== undefined);
}

/** By id, within its partner; by id alone (for delivery) when no partner is given. */
export function getEndpoint(tx: Tx, partnerId: string | undefined, endpointId: string): WebhookEndpointRecord | undefined {
  const endpoint = tx.get(endpoints, endpointId);
  return endpoint && (partnerId === undefined || endpoint.partnerId === partnerId) ? endpoint : undefined;
}

/** Replaces the endpoint's settings (not its id, partner or creation time); undefined when there is no such endpoint. */
export function updateEndpoint(tx: Tx, endpoint: WebhookEndpointRecord): WebhookEndpointRecord | undefined {
  const stored = getEndpoint(tx, endpoint.partnerId, endpoint.id);
  if (!stored) return undefined;
  const updated = { ...endpoint, createdAt: stored.createdAt };
  tx.put(endpoints, endpoint.id, updated);
  announce(tx, 'endpoints', endpoint.partnerId);
  return updated;
}

/** False when the partner has no such endpoint. */
export function deleteEndpoint(tx: Tx, partnerId: string, endpointId: string): boolean {
  const stored = getEndpoint(tx, partnerId, endpointId);
  if (!stored) return false;
  tx.delete(endpoints, endpointId);
  tx.delete(byPartner, key(partnerId, stored.createdAt, endpointId));
  tx.put(counts, partnerId, Math.max(0, (tx.get(counts, partnerId) ?? 1) - 1));
  forgetRelayRefusals(tx, endpointId);
  announce(tx, 'endpoints', partnerId);
  return true;
}

/** Counts a refusal of the endpoint's relay, unless the endpoint went meanwhile. */
export function countRelayRefusal(tx: Tx, endpointId: string, refusal: RelayRefusal): void {
  const endpoint = tx.get(endpoints, endpointId);
  if (endpoint === undefined) return;
  tx.add(relayRefusalCounts, endpointId, 1);
  tx.put(lastRelayRefusals, endpointId, refusal);
  announce(tx, 'endpoints', endpoint.partnerId);
}

export function relayRefusalsOf(tx: Tx, endpointId: string): RelayRefusals {
  return { count: tx.get(relayRefusalCounts, endpointId) ?? 0, last: tx.get(lastRelayRefusals, endpointId) ?? null };
}

/** Starts the count afresh: the endpoint's relay is set again (a new secret), or the endpoint goes. */
export function forgetRelayRefusals(tx: Tx, endpointId: string): void {
  tx.delete(relayRefusalCounts, endpointId);
  tx.delete(lastRelayRefusals, endpointId);
}
