/**
 * The partner portal's webhook endpoints, as the admin routes serve them: each partner's endpoints with their URL,
 * event subscriptions, switch and signing secrets, and the rules a portal enforces on them (an http(s) URL without
 * credentials, known event types, at most `maxEndpointsPerPartner`). Field errors come back as the API words them.
 */
import type { components } from '../../../generated/mock-admin/openapi.js';
import type { FieldError } from '../../../generated/openapi.js';
import { ApiError, notFound, validationFailed } from '../../http/api-error.ts';
import { newId } from '../../ids.ts';
import type { Store } from '../../store/store.ts';
import type { AllowedTargets } from '../allowed-targets.ts';
import type { WebhookDispatcher } from '../dispatcher.ts';
import { endpointUrlProblem } from '../endpoint-url.ts';
import type { WebhookOutbox } from '../outbox/outbox.ts';
import type { EndpointState } from '../outbox/outbox-types.ts';
import { isSigningSecret, newWebhookSecret } from '../signing.ts';
import {
  createEndpoint,
  deleteEndpoint,
  forgetRelayRefusals,
  getEndpoint,
  listEndpoints,
  relayRefusalsOf,
  updateEndpoint,
  type RelayRefusals,
  type WebhookEndpointRecord,
  type WebhookRelayRecord,
} from './endpoint-records.ts';

type AdminSchemas = components['schemas'];

export const maxEndpointsPerPartner = 20;
export const defaultRotationOverlapSeconds = 24 * 60 * 60;

/** An endpoint as the admin API shows it. */
export type WebhookEndpointView = AdminSchemas['WebhookEndpoint'];
export type EndpointSettings = AdminSchemas['WebhookEndpointUpdateRequest'];

export interface WebhookEndpointPortal {
  list(partnerId: string): Promise<WebhookEndpointView[]>;
  get(partnerId: string, endpointId: string): Promise<WebhookEndpointView>;
  create(partnerId: string, settings: AdminSchemas['WebhookEndpointCreateRequest'] & Pick<EndpointSettings, 'status'>): Promise<WebhookEndpointView & { secret: string }>;
  update(partnerId: string, endpointId: string, settings: EndpointSettings): Promise<WebhookEndpointView>;
  delete(partnerId: string, endpointId: string): Promise<{ id: string; deleted: true }>;
  rotateSecret(partnerId: string, endpointId: string, overlapSeconds?: number): Promise<WebhookEndpointView & { secret: string }>;
  reenable(partnerId: string, endpointId: string): Promise<WebhookEndpointView>;
}

export function createWebhookEndpointPortal(options: { store: Store; outbox: WebhookOutbox; dispatcher: WebhookDispatcher; eventTypes: readonly string[]; allowed?: AllowedTargets }): WebhookEndpointPortal {
  const { store, outbox, dispatcher } = options;
  const problems = settingsProblems(options.eventTypes, options.allowed);
  const view = async (endpoint: WebhookEndpointRecord) =>
    viewOf(endpoint, await outbox.endpoint(endpoint.id), await store.read((tx) => relayRefusalsOf(tx, endpoint.id)));

  const found = async (partnerId: string, endpointId: string): Promise<WebhookEndpointRecord> => {
    const endpoint = await store.read((tx) => getEndpoint(tx, partnerId, endpointId));
    if (!endpoint) throw notFound(`webhook endpoint ${endpointId}`);
    return endpoint;
  };

  const switchTo = async (endpoint: WebhookEndpointRecord, status: 'enabled' | 'disabled' | undefined) => {
    if (status === 'disabled') await outbox.disable(endpoint.id, Date.now(), endpoint.partnerId);
    if (status === 'enabled') await dispatcher.reenable(endpoint.id);
  };

  return {
    async list(partnerId) {
      return Promise.all((await store.read((tx) => listEndpoints(tx, partnerId))).map(view));
    },

    async get(partnerId, endpointId) {
      return view(await found(partnerId, endpointId));
    },

    async create(partnerId, settings) {
      const refused = problems(settings);
      if (refused.length > 0) throw validationFailed(refused);
      const now = Date.now();
      const secret = newWebhookSecret();
      const endpoint: WebhookEndpointRecord = {
        id: newId('we'),
        partnerId,
        url: settings.url,
        description: settings.description ?? null,
        enabledEvents: settings.enabledEvents ?? ['*'],
        secrets: [{ secret, expiresAt: null }],
        ...(settings.relay ? { relay: relayOf(undefined, settings.relay) } : {}),
        createdAt: now,
        updatedAt: now,
      };
      if (!(await store.write((tx) => createEndpoint(tx, endpoint, maxEndpointsPerPartner)))) {
        throw new ApiError(409, 'E_WEBHOOK_ENDPOINT_LIMIT', `A partner has at most ${maxEndpointsPerPartner} webhook endpoints; delete one first.`);
      }
      await switchTo(endpoint, settings.status);
      return { ...(await view(endpoint)), secret };
    },

    async update(partnerId, endpointId, settings) {
      const refused = problems(settings);
      if (refused.length > 0) throw validationFailed(refused);
      const endpoint = await found(partnerId, endpointId);
      const { status, relay, ...changes } = settings;
      const updatedAt = Date.now();
      const { relay: _previous, ...rest } = endpoint;
      // `relay: null` forgets its secret (the relay awaits one again); left out, the relay stays as it is.
      const relaying = relay === undefined ? endpoint.relay : relay === null ? undefined : relayOf(endpoint.relay, relay);
      const updated =
        (await store.write((tx) => {
          const written = updateEndpoint(tx, { ...rest, ...changes, ...(relaying ? { relay: relaying } : {}), updatedAt });
          // A new secret (most often after refusals), or none, counts its refusals afresh.
          if (written && (relay === null || relay?.secret !== undefined)) forgetRelayRefusals(tx, endpointId);
          return written;
        })) ?? endpoint;
      await switchTo(updated, status);
      return view(updated);
    },

    async delete(partnerId, endpointId) {
      if (!(await store.write((tx) => deleteEndpoint(tx, partnerId, endpointId)))) throw notFound(`webhook endpoint ${endpointId}`);
      // What waited for it goes with it (its delivered events stay listed).
      await outbox.forgetEndpoint(endpointId);
      return { id: endpointId, deleted: true };
    },

    async rotateSecret(partnerId, endpointId, overlapSeconds = defaultRotationOverlapSeconds) {
      const endpoint = await found(partnerId, endpointId);
      const now = Date.now();
      const secret = newWebhookSecret();
      const current = endpoint.secrets.find((candidate) => candidate.expiresAt === null);
      // The secret being replaced keeps signing for the overlap, beside the new one; any older one is dropped.
      const secrets = [{ secret, expiresAt: null }, ...(current && overlapSeconds > 0 ? [{ secret: current.secret, expiresAt: now + overlapSeconds * 1000 }] : [])];
      const updated = (await store.write((tx) => updateEndpoint(tx, { ...endpoint, secrets, updatedAt: now }))) ?? endpoint;
      return { ...(await view(updated)), secret };
    },

    async reenable(partnerId, endpointId) {
      const endpoint = await found(partnerId, endpointId);
      await dispatcher.reenable(endpoint.id);
      return view(endpoint);
    },
  };
}

/** What is wrong with an endpoint's settings: a URL that is not an absolute http(s) one, an unknown event type. */
function settingsProblems(eventTypes: readonly string[], allowed: AllowedTargets | undefined): (settings: EndpointSettings) => FieldError[] {
  const knownEvents = new Set([...eventTypes, '*']);
  return (settings) => {
    const found: FieldError[] = [];
    if (settings.url !== undefined) {
      const problem = endpointUrlProblem(settings.url, allowed);
      if (problem) found.push({ in: 'body', field: '/url', ...problem });
    }
    if (settings.relay?.secret !== undefined && !isSigningSecret(settings.relay.secret)) {
      found.push({ in: 'body', field: '/relay/secret', code: 'E_PATTERN', message: 'Not a signing secret: give the whsec_ secret the sandbox shows for this URL, whole.' });
    }
    settings.enabledEvents?.forEach((type, index) => {
      if (!knownEvents.has(type)) found.push({ in: 'body', field: `/enabledEvents/${index}`, code: 'E_NOT_ALLOWED_VALUE', message: `Not an event type: use one of ${[...knownEvents].join(', ')}.` });
    });
    return found;
  };
}

function viewOf(endpoint: WebhookEndpointRecord, { disabled }: EndpointState, refusals: RelayRefusals | undefined): WebhookEndpointView {
  const previous = endpoint.secrets.find((secret) => secret.expiresAt !== null && secret.expiresAt > Date.now());
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    // Stored as text; each was checked against the contract's event types when it was set.
    enabledEvents: endpoint.enabledEvents as AdminSchemas['EventSubscription'][],
    status: disabled ? 'disabled' : 'enabled',
    disabled: disabled ? { at: iso(disabled.at), reason: disabled.reason, failedEventId: disabled.failedEventId } : null,
    secretRotation: previous ? { previousSecretExpiresAt: iso(previous.expiresAt as number) } : null,
    relay: { url: relayPath(endpoint.id), state: endpoint.relay?.secret ? 'relaying' : 'awaiting-secret', signWith: endpoint.relay?.signWith ?? 'endpoint', refusals: refusalsView(refusals) },
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
  };
}

function refusalsView(refusals: RelayRefusals | undefined): AdminSchemas['RelayRefusals'] {
  const last = refusals?.last;
  return { count: refusals?.count ?? 0, last: last ? { at: iso(last.at), signature: last.signature, reason: last.reason } : null };
}

/** The relay as `settings` leave it: what they give, over what it was. */
function relayOf(before: WebhookRelayRecord | undefined, settings: AdminSchemas['WebhookRelaySettings']): WebhookRelayRecord {
  const secret = settings.secret ?? before?.secret;
  return { ...(secret === undefined ? {} : { secret }), signWith: settings.signWith ?? before?.signWith ?? 'endpoint' };
}

/** Where the sandbox sends an endpoint's events; the admin handlers make it absolute (`relay.url`). */
export function relayPath(endpointId: string): string {
  return `/_mock/relay/${endpointId}`;
}

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
