/** Small helpers shared by the webhook tests: secrets, a capturing logger, contract validators, polling, cleanup. */
import { randomBytes } from 'node:crypto';
import type { DispatcherLogger } from '../../../../mock/webhooks/dispatcher.ts';
import { contractSchema } from '../../../support/contract-schemas.ts';

/**
 * For attempts whose timeout is not what a test is about: wide enough that a loaded machine never turns a slow
 * local answer into a failure.
 */
export const roomyTimeoutMs = 10_000;

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface LogLine {
  level: 'info' | 'warn' | 'error' | 'debug';
  obj: object;
  msg: string | undefined;
}

/** A dispatcher logger that keeps every line, so a test can say what was logged and at which level. */
export function captureLogger(): DispatcherLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg?: string) => {
    lines.push({ level, obj, msg });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

/** Validates against a schema of the bundled contract, e.g. `WebhookEndpointDisabledEvent`. */
export async function contractValidator(schemaName: string) {
  return contractSchema(schemaName);
}

/**
 * Waits until `check` holds, polling; for conditions with no event to await (e.g. a request that arrived). The
 * timeout only turns a hang into a failure: no passing test depends on it.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(5);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a test opens (receivers, harnesses) is closed after it, so a failing test leaves no timer or socket behind. */
export function openResources() {
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
