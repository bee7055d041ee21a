/**
 * Runs the Redis backend's Lua scripts. Each is registered once per client with ioredis `defineCommand`, which
 * sends EVALSHA and falls back to EVAL when the server has lost its script cache (after a restart). Every failure
 * comes back as a StoreError naming the store (never its password), so a caller's log says which Redis failed.
 */
import type { Redis } from 'ioredis';
import { StoreError } from '../store-error.ts';
import { keysLua } from './keys.ts';
import { commonLua } from './lua-common.ts';

export type ScriptArg = string | number | Buffer;

/** A script as written: its body, and the shared Lua it needs besides the key names and helpers. */
export interface ScriptSource {
  lua: string;
  needs?: readonly string[];
}

export interface ScriptRunner {
  /** Replies decoded as UTF-8 strings. */
  run(name: string, args: readonly ScriptArg[]): Promise<unknown>;
  /** Replies as Buffers, for scripts that return bytes. */
  runBinary(name: string, args: readonly ScriptArg[]): Promise<unknown>;
  /**
   * Refuses new calls, closes the connection with `disconnect`, then fails the calls still waiting: during an
   * outage ioredis would leave them pending for ever. Once only, however often it is called.
   */
  shutdown(disconnect: () => Promise<void>): Promise<void>;
}

type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

export function registerScripts(client: Redis, scripts: Record<string, ScriptSource>, description: string): ScriptRunner {
  for (const [name, source] of Object.entries(scripts)) {
    client.defineCommand(name, { numberOfKeys: 0, lua: [keysLua, commonLua, ...(source.needs ?? []), source.lua].join('\n') });
  }
  const commands = client as unknown as Record<string, ScriptCommand | undefined>;
  const waiting = new Set<(error: Error) => void>();
  let closing: Promise<void> | undefined;

  const call = async (command: string, args: readonly ScriptArg[]) => {
    const script = commands[command];
    if (!script) throw new StoreError(`the Redis store has no script ${command}`);
    if (closing) throw new StoreError(`the Redis store ${description} is closed`);
    let abandon: (error: Error) => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => (abandon = reject));
    waiting.add(abandon);
    try {
      return await Promise.race([script.apply(client, [...args]), abandoned]);
    } catch (error) {
      throw new StoreError(`the Redis store ${description} failed: ${(error as Error).message}`, { cause: error });
    } finally {
      waiting.delete(abandon);
    }
  };

  const shutdown = async (disconnect: () => Promise<void>) => {
    await disconnect();
    for (const abandon of waiting) abandon(new Error('the store was closed before Redis answered'));
  };

  return {
    run: (name, args) => call(name, args),
    runBinary: (name, args) => call(`${name}Buffer`, args),
    shutdown: (disconnect) => (closing ??= shutdown(disconnect)),
  };
}

// ── Reading replies ──────────────────────────────────────────────────────────────────────────────────────────

export const asArray = (reply: unknown): unknown[] => (Array.isArray(reply) ? reply : []);

export const asText = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));

/** A copy, so that a reply's bytes never pin the connection's read buffer. */
export const asBytes = (value: unknown): Uint8Array => new Uint8Array(Buffer.isBuffer(value) ? value : Buffer.from(String(value)));

export const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Pairs of (position, JSON) as the list scripts return them. */
export function positioned<T>(reply: unknown): { seq: number; value: T }[] {
  const flat = asArray(reply);
  const rows: { seq: number; value: T }[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ seq: Number(flat[i]), value: JSON.parse(asText(flat[i + 1])) as T });
  return rows;
}

/** A page from up to `limit + 1` rows: the extra row only says that there is more. */
export function pageOf<T>(rows: { seq: number; value: T }[], limit: number): { items: T[]; hasMore: boolean; last?: number } {
  const shown = rows.slice(0, limit);
  return { items: shown.map((row) => row.value), hasMore: rows.length > limit, last: shown.at(-1)?.seq };
}

/** The exclusive upper bound of a newest-first page. */
export const beforePosition = (after: number | undefined): number => after ?? Number.MAX_SAFE_INTEGER;
