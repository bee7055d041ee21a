/**
 * What the benchmarks send, and the small helpers both use to stand targets up: the two measured operations as
 * autocannon requests, the customer the reads fetch, and waiting for a server to answer.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Request as LoadRequest } from 'autocannon';
import { freePort } from '../contract-tests/support/processes.ts';

export { freePort };

export type { LoadRequest };

const benchKey = `dk_test_${'b'.repeat(24)}`;

const customerBody = JSON.stringify({ email: 'ada.lovelace@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'GBR' });

/** The customer id a target without state (Prism, the bare server) is asked for. */
export const exampleCustomerId = 'cus_8sWq2LmX4pTn7VbK3dRz9YhC';

export type OperationName = 'getCustomer' | 'createCustomer';

export const operationNames: readonly OperationName[] = ['getCustomer', 'createCustomer'];

/**
 * The mock's settings as `npm start` runs it (SQLite, every response checked, a log line per request), with only the
 * rate limit lifted, so that the load is answered rather than refused.
 */
export const asShipped: readonly string[] = ['--rate-limit', '500000'];

/** The settings of the store rows: only the store's own cost (no response check, no log line, no timeline). */
export const storeOnly: readonly string[] = ['--log-level', 'error', ...asShipped, '--validate-responses', 'off', '--formation-timeline', 'manual'];

/** The request of one measured operation; a create gets a fresh Idempotency-Key each time, so none is a replay. */
export function loadRequest(operation: OperationName, customerId: string): LoadRequest {
  const headers = { authorization: benchKey, 'content-type': 'application/json' };
  if (operation === 'getCustomer') return { method: 'GET', path: `/v1/partner/customers/${customerId}`, headers };
  return { method: 'POST', path: '/v1/partner/customers', headers, body: customerBody, setupRequest: withFreshKey };
}

function withFreshKey(request: LoadRequest): LoadRequest {
  return { ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } };
}

/** Creates the customer that `getCustomer` reads, on a target that keeps state. */
export async function createCustomerToRead(url: string, targetName: string): Promise<string> {
  const response = await fetch(`${url}/v1/partner/customers`, {
    method: 'POST',
    headers: { authorization: benchKey, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: customerBody,
  });
  const answer = (await response.json()) as { payload: { serviceCustomerId: string } | null; error: unknown };
  if (!answer.payload) throw new Error(`${targetName}: creating the customer to read failed: ${JSON.stringify(answer.error)}`);
  return answer.payload.serviceCustomerId;
}

export async function waitFor(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(500) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}


export interface ServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Spawns a server that listens on `port` and resolves once it answers; a server that fails to spawn, exits or
 * does not answer in time is killed and the start rejected, so no failed start leaves a process behind.
 */
export async function spawnServer(command: string, args: readonly string[], port: number, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ServerProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: options.env ?? process.env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`${command} could not be started: ${error.message}`)));
    void exited.then(() => reject(new Error(`${command} ${args.join(' ')} exited before it answered`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([waitFor(url, options.timeoutMs), failed]);
  } catch (error) {
    if (child.pid !== undefined) await stop();
    throw error;
  }
  failed.catch(() => undefined);
  return { url, pid: child.pid as number, stop };
}
