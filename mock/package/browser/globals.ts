/**
 * The globals of Node the mock's modules use, for the browser build. esbuild injects these in place of the globals
 * they name, in the bundle's own code only (the page's, and its msw, keep the browser's): `Buffer`, from the
 * `buffer` package (the Node API for browsers); the part of `process` they read (the high-resolution clock a
 * request's duration is measured with, an empty environment); and timers that answer `unref`, as Node's do, which
 * the mock calls so that its background work never keeps a process alive (a page has no process to keep).
 */
import { Buffer } from 'buffer';

/**
 * The buffer package predates the base64url encoding (Node 15), which the mock's ids, cursors and signed URLs are
 * written in: it is read and written here through base64, as Node defines it (no padding written, none needed).
 */
const base64urlOf = (base64: string) => base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const toText = Buffer.prototype.toString;
Buffer.prototype.toString = function toString(this: Buffer, encoding?: string, start?: number, end?: number): string {
  if (encoding === 'base64url') return base64urlOf(toText.call(this, 'base64', start, end));
  return toText.call(this, encoding as BufferEncoding, start, end);
};
const fromValue = Buffer.from.bind(Buffer) as (value: unknown, encoding?: unknown, length?: unknown) => Buffer;
Buffer.from = function from(value: unknown, encoding?: unknown, length?: unknown): Buffer {
  if (encoding === 'base64url' && typeof value === 'string') return fromValue(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return fromValue(value, encoding, length);
} as typeof Buffer.from;

const started = performance.now();
const processInBrowser = {
  env: {} as Record<string, string | undefined>,
  versions: {} as Record<string, string>,
  stdout: { isTTY: false },
  cwd: () => '/',
  hrtime: { bigint: () => BigInt(Math.round((performance.now() - started) * 1e6)) },
};

/** A browser's timer id, as a Node timer: `unref` and `ref` do nothing, and it is the id wherever a number is wanted. */
class Timer {
  constructor(readonly id: ReturnType<typeof globalThis.setTimeout>) {}
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  [Symbol.toPrimitive](): number {
    return Number(this.id);
  }
}

const idOf = (timer: unknown) => (timer instanceof Timer ? timer.id : (timer as number | undefined));
const setTimeoutInBrowser = (run: () => void, ms?: number) => new Timer(globalThis.setTimeout(run, ms));
const setIntervalInBrowser = (run: () => void, ms?: number) => new Timer(globalThis.setInterval(run, ms));
const clearTimeoutInBrowser = (timer: unknown) => globalThis.clearTimeout(idOf(timer));
const clearIntervalInBrowser = (timer: unknown) => globalThis.clearInterval(idOf(timer));

export {
  Buffer,
  processInBrowser as process,
  setTimeoutInBrowser as setTimeout,
  setIntervalInBrowser as setInterval,
  clearTimeoutInBrowser as clearTimeout,
  clearIntervalInBrowser as clearInterval,
};
