/**
 * The Redis backend's connection. Opening waits a few seconds at most: a mock pointed at the wrong place should say
 * so and stop, not retry forever. Once open, ioredis reconnects on its own after an outage, every 2 s at most; a
 * command sent while the connection is down fails at once (no offline queue) rather than waits for it, so that a
 * request is answered 503 within milliseconds, not after seconds of reconnecting (redis-store.ts names the cause).
 */
import { Redis } from 'ioredis';
import { maskStoreUrl } from '../store-url.ts';
import { StoreError } from '../store-error.ts';

const openTimeoutMs = 5_000;
const attemptTimeoutMs = 2_000;
const openRetryDelayMs = 250;
const maxReconnectDelayMs = 2_000;

/** `redis://host:port/db`: the URL as it may be shown, without user or password. */
export function describeRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError(`${JSON.stringify(maskStoreUrl(url))} is not a valid redis:// URL`);
  }
  const database = parsed.pathname.replace(/^\//, '') || '0';
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}/${database}`;
}

/** Errors that retrying cannot fix: better reported at once than after the whole wait. */
const isPermanent = (error: Error): boolean => /^(WRONGPASS|NOAUTH|NOPERM)|DB index/i.test(error.message);

export async function connectRedis(url: string, description: string): Promise<Redis> {
  const deadline = Date.now() + openTimeoutMs;
  let opened = false;
  const client = new Redis(url, {
    lazyConnect: true,
    connectionName: 'partner-formation-mock',
    connectTimeout: attemptTimeoutMs,
    // Nothing is sent before the connection is ready (waitUntilReady), and nothing is held for the next one after.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 2,
    // A command sent when the connection closed is not sent again by ioredis: a commit made, whose answer was lost,
    // would be made twice, and one made on what the process knew before (hints) would reach a server that may have
    // lost writes. The store fails or resends each itself (redis-store.ts, `guardedCalls`).
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => (opened ? Math.min(times * 200, maxReconnectDelayMs) : Date.now() < deadline ? openRetryDelayMs : null),
  });
  // Without a listener an 'error' event would end the process; failures reach callers as rejected commands.
  client.on('error', () => undefined);
  await waitUntilReady(client, description);
  opened = true;
  return client;
}

function waitUntilReady(client: Redis, description: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let lastError: Error | undefined;
    const settle = (error?: Error) => {
      clearTimeout(timer);
      client.off('error', onError).off('ready', onReady).off('end', onEnd);
      if (!error) return resolve();
      client.disconnect();
      reject(
        new StoreError(
          `could not connect to Redis at ${description} (${error.message}): check that redis-server is running and reachable there, and that the URL's host, port, password and database number are right`,
          { cause: error },
        ),
      );
    };
    const onError = (error: Error) => {
      lastError = error;
      if (isPermanent(error)) settle(error);
    };
    const onReady = () => settle();
    const onEnd = () => settle(lastError ?? new Error('the connection closed'));
    const timer = setTimeout(() => settle(lastError ?? new Error(`no answer within ${openTimeoutMs} ms`)), openTimeoutMs);
    client.on('error', onError).once('ready', onReady).once('end', onEnd);
    // The first failed attempt rejects this promise while ioredis keeps retrying; the events above decide.
    client.connect().catch(() => undefined);
  });
}

/**
 * QUIT, so that commands already sent get their answers; a plain disconnect when the connection is down (QUIT
 * would only wait for it to come back), fails or takes too long.
 */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') return client.disconnect();
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('QUIT took too long')), 1_000);
  });
  try {
    await Promise.race([client.quit(), tooSlow]);
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
