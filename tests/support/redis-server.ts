/**
 * A throwaway `redis-server` for tests: on a free loopback port, with nothing saved to disk, stopped afterwards.
 * Where the machine has no redis-server the Redis tests are skipped with a line saying so, except under CI=true,
 * where a missing server fails the run: CI installs it (.ci/run), so its absence there is a broken set-up.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../contract-tests/support/processes.ts';
import { StoreUnavailable } from '../../mock/store/store-error.ts';

export interface RedisServer {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export const redisServerPath = findRedisServer();

/** Whether the Redis tests run here; says why not, once, when they do not. */
export function redisTestsEnabled(): boolean {
  if (redisServerPath) return true;
  if (process.env.CI === 'true') throw new Error('redis-server is not installed, and CI=true requires the Redis tests to run (.ci/run installs it: apt-get install redis-server)');
  if (!warned) {
    warned = true;
    console.warn('redis-server not found: the Redis store tests are skipped (apt-get install redis-server to run them)');
  }
  return false;
}
let warned = false;

function findRedisServer(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : undefined;
}

/**
 * `port`: a given one (a server started again where the one before was); `dir`: a folder where every write is
 * appended and synced before it is answered, so that a server killed and started again on it has lost nothing.
 */
export async function startRedisServer(options: { port?: number; dir?: string } = {}): Promise<RedisServer> {
  if (!redisServerPath) throw new Error('redis-server is not installed');
  const port = options.port ?? (await freePort());
  const persistence = options.dir === undefined ? ['--appendonly', 'no'] : ['--dir', options.dir, '--appendonly', 'yes', '--appendfsync', 'always'];
  const child: ChildProcess = spawn(redisServerPath, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      break;
    } catch (error) {
      client.disconnect();
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on port ${port}: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return {
    url,
    port,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}


/**
 * A call to a store on Redis made again until the store answers: while its connection is being made again (after a
 * test closed it), a call fails at once as StoreUnavailable rather than waits.
 */
export async function onceStoreAnswers<T>(call: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof StoreUnavailable) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
