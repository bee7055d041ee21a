/** What the relay tests send as a sandbox would: contract events, signed (or not) with the sandbox's secret. */
import { Webhook } from 'standardwebhooks';
import type { TestMock } from '../../support/mock-harness.ts';

/** Event ids the contract's `EventId` allows, distinct within a test file (`prefix` keeps files apart). */
export function eventIds(prefix: string): () => string {
  let sequence = 0;
  return () => `evt_${prefix}${String(sequence++).padStart(24 - prefix.length, '0')}`;
}

/** A `company.formation.completed` event that keeps the contract; `data` replaces what it names. */
export function completedEvent(id: string, data: Record<string, unknown> = {}) {
  return {
    id,
    type: 'company.formation.completed',
    timestamp: '2026-11-24T09:00:00Z',
    data: { serviceCompanyId: 'com_5kHx9QaZ2mTw6RcN8vLp3JyD', serviceCustomerId: 'cus_8sWq2LmX4pTn7VbK3dRz9YhC', status: 'COMPLETED', name: 'Analytical Engines LLC', filingDate: '2026-11-24', ...data },
  };
}

export interface Sending {
  /** The sandbox's secret for this relay URL; the event goes unsigned when it is undefined and no header is given. */
  secret?: string;
  /** When it was signed (now unless given). */
  at?: Date;
  /** Headers that replace the signed ones, or (undefined) leave them out. */
  headers?: Record<string, string | undefined>;
  /** The `webhook-id` (the event's `id` unless given). */
  id?: string;
  /** The exact body (the event's JSON unless given). */
  rawBody?: string;
}

/** Posts an event to an endpoint's relay URL, as a sandbox would: without a key or the admin token. */
export function sendToRelay(mock: Pick<TestMock, 'call'>, endpointId: string, event: unknown, options: Sending = {}) {
  const body = options.rawBody ?? JSON.stringify(event);
  const id = options.id ?? (event as { id: string }).id;
  const at = options.at ?? new Date();
  const signed: Record<string, string | undefined> = options.secret === undefined
    ? {}
    : { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(options.secret).sign(id, at, body) };
  const headers = Object.fromEntries(Object.entries({ ...signed, ...options.headers }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return mock.call(`/_mock/relay/${endpointId}`, { rawBody: body, key: null, headers: { ...headers, 'x-request-id': `req-relay-${id}` } });
}
