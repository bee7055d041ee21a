import { randomBytes } from 'node:crypto';
import { newId } from '../../../../mock/ids.ts';
import { createMemoryStore } from '../../../../mock/store/memory/memory-store.ts';
import { defaultStoreOptions, type Store, type StoreOptions } from '../../../../mock/store/store.ts';
import type { WebhookEventOf } from '../../../../mock/webhooks/events.ts';
import type { DispatcherLogger } from '../../../../mock/webhooks/types.ts';
import { contractSchema } from '../../../support/contract-schemas.ts';

/**
 * For attempts whose timeout is not what a test is about: wide enough that a loaded machine never turns a slow
 * local answer into a failure.
 */
export const roomyTimeoutMs = 10_000;

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Ids built like the contract's (`com_` + 24), so the events validate as they would in the mock. */
export function companyId(label: string): string {
  return `com_${label.padEnd(24, '0').slice(0, 24)}`;
}

/** A `company.formation.submitted` event for a company; `n` goes into the customer id so each event is distinct. */
export function submittedEvent(company: string, n = 0): WebhookEventOf<'company.formation.submitted'> {
  return {
    id: newId('evt'),
    type: 'company.formation.submitted',
    timestamp: new Date().toISOString(),
    data: {
      serviceCompanyId: company,
      serviceCustomerId: `cus_${String(n).padStart(24, '0')}`,
      status: 'SUBMITTED',
      submittedAt: new Date().toISOString(),
    },
  };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error' | 'debug';
  obj: object;
  msg: string | undefined;
}

export function captureLogger(): DispatcherLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg?: string) => {
    lines.push({ level, obj, msg });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}


/** A memory store for a dispatcher under test; events it must drop are logged to `logger` as the mock does. */
export function testStore(options: Partial<StoreOptions> = {}, logger?: DispatcherLogger): Store {
  return createMemoryStore({
    ...defaultStoreOptions,
    ...options,
    onDroppedEvent: (event) => logger?.error(event, 'webhook event dropped: too many events waiting for delivery'),
  });
}

/** Validates against a schema of the bundled contract, e.g. `WebhookEndpointDisabledEvent`. */
export async function contractValidator(schemaName: string) {
  return contractSchema(schemaName);
}

/** Waits until `check` holds, polling; for conditions with no event to await (e.g. a request that arrived). */
export async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Dispatchers made by `harness()` are closed after each test, so a failing test leaves no timer behind. */
export function harness() {
  const open: { close(): Promise<void> }[] = [];
  return {
    track<T extends { close(): Promise<void> }>(resource: T): T {
      open.push(resource);
      return resource;
    },
    async closeAll() {
      await Promise.allSettled(open.splice(0).map((resource) => resource.close()));
    },
  };
}
