/**
 * `node:crypto` in the browser build: the calls the mock makes (SHA-256 and its HMAC, AES-256 in GCM and in ECB
 * without padding, random bytes, integers and UUIDs, a comparison in constant time), synchronous as Node's are, on
 * the audited @noble/hashes and @noble/ciphers, with the browser's own random source. Anything else is refused.
 */
import { gcm, ecb } from '@noble/ciphers/aes.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Buffer } from 'buffer';

type Data = string | Uint8Array;
const bytesOf = (data: Data) => (typeof data === 'string' ? Buffer.from(data, 'utf8') : data);

function digestAs(bytes: Uint8Array, encoding?: BufferEncoding): Buffer | string {
  const buffer = Buffer.from(bytes);
  return encoding === undefined ? buffer : buffer.toString(encoding);
}

/** A hash or an HMAC that takes what it hashes in parts, as Node's do. */
function incremental(finish: (data: Uint8Array) => Uint8Array) {
  const parts: Uint8Array[] = [];
  const hash = {
    update(data: Data) {
      parts.push(bytesOf(data));
      return hash;
    },
    digest: (encoding?: BufferEncoding) => digestAs(finish(Buffer.concat(parts)), encoding),
  };
  return hash;
}

function sha256Only(algorithm: string): void {
  if (algorithm !== 'sha256') throw new Error(`node:crypto in the browser build hashes with sha256 only, not ${algorithm}`);
}

export function createHash(algorithm: string) {
  sha256Only(algorithm);
  return incremental((data) => sha256(data));
}

export function createHmac(algorithm: string, key: Data) {
  sha256Only(algorithm);
  return incremental((data) => hmac(sha256, bytesOf(key), data));
}

/** A cipher that collects its input and seals it at `final`: the mock's messages are a few dozen bytes. */
function aes(algorithm: string, key: Uint8Array, iv: Uint8Array | null, encrypting: boolean) {
  const parts: Uint8Array[] = [];
  let tag: Uint8Array | undefined;
  const run = (data: Uint8Array): Uint8Array => {
    if (algorithm === 'aes-256-ecb') return encrypting ? ecb(key, { disablePadding: true }).encrypt(data) : ecb(key, { disablePadding: true }).decrypt(data);
    if (algorithm !== 'aes-256-gcm' || !iv) throw new Error(`node:crypto in the browser build has no ${algorithm}`);
    if (encrypting) {
      const sealed = gcm(key, iv).encrypt(data);
      tag = sealed.subarray(sealed.length - 16);
      return sealed.subarray(0, sealed.length - 16);
    }
    if (!tag) throw new Error('setAuthTag first');
    return gcm(key, iv).decrypt(Buffer.concat([data, tag]));
  };
  const cipher = {
    setAutoPadding: () => cipher,
    setAuthTag(given: Uint8Array) {
      tag = given;
      return cipher;
    },
    getAuthTag: () => Buffer.from(tag ?? new Uint8Array()),
    update(data: Data) {
      parts.push(bytesOf(data));
      return Buffer.alloc(0);
    },
    final: () => Buffer.from(run(Buffer.concat(parts))),
  };
  return cipher;
}

export const createCipheriv = (algorithm: string, key: Uint8Array, iv: Uint8Array | null) => aes(algorithm, key, iv, true);
export const createDecipheriv = (algorithm: string, key: Uint8Array, iv: Uint8Array | null) => aes(algorithm, key, iv, false);

export function randomBytes(size: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(size)));
}

/** A random integer in [min, max), or [0, min) with one argument, as Node's. */
export function randomInt(min: number, max?: number): number {
  const [low, high] = max === undefined ? [0, min] : [min, max];
  const range = high - low;
  // Rejection sampling over 32 bits: no bias for the small ranges the mock asks for.
  const limit = Math.floor(0x1_0000_0000 / range) * range;
  for (;;) {
    const value = crypto.getRandomValues(new Uint32Array(1))[0] as number;
    if (value < limit) return low + (value % range);
  }
}

export const randomUUID = (): string => crypto.randomUUID();

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) throw new RangeError('Input buffers must have the same byte length');
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= (a[index] as number) ^ (b[index] as number);
  return difference === 0;
}
